import { type RunEvent, type RunStatus, compareSeq, isAnswerNode } from '@switchyard/contracts';
import type { StreamEncoding } from '../runs/run-event-stream';
import type { StreamMode } from './langgraph.schemas';

// A run's events as LangGraph stream parts (LANGGRAPH_API.md §3). Every part the run's log can
// give gets an integer id, counted over the whole log whichever modes a client asked for, so a
// join with `Last-Event-ID` (or a reconnect through `Location`) resumes at the same place:
//   0            metadata {run_id, thread_id, attempt}
//   token        messages [AIMessageChunk, metadata]   (the answer nodes' tokens)
//   action       updates {<node>: {action}}             (one per committed action)
//   question     values {__interrupt__} and updates {__interrupt__}
//   done         error {error, message} when the run failed, or values (the final values)

export interface LgPart {
  event: string;
  data: unknown;
}

export interface LgStreamOptions {
  runId: string;
  threadId: string;
  modes: readonly StreamMode[];
  /** Parts with an id at or below this are not sent (`Last-Event-ID`; -1: all). */
  afterId: number;
  /** Events at or below this id were before the client came (a join without `Last-Event-ID`, a resume). */
  liveAfter: string | null;
  /** `numbered`: the metadata part is id 0; `unnumbered`: sent without an id (a resume); `none`. */
  metadata: 'numbered' | 'unnumbered' | 'none';
  /**
   * A question at or after this event ends the stream (the run waits for its answer); null: any.
   * `inclusive`: the run waits on this very event (a join while it waits).
   */
  waitFrom: { seq: string; inclusive: boolean } | null;
  /** The parts after the run's `done` (its final values, or an error the log did not carry). */
  final(status: RunStatus, errorSent: boolean): Promise<LgPart[]>;
}

export const partFrame = (id: number | null, p: LgPart): string =>
  `${id === null ? '' : `id: ${id}\n`}event: ${p.event}\ndata: ${JSON.stringify(p.data)}\n\n`;

/** The message chunk id of a run's answer (useStream merges chunks by id). */
export const answerChunkId = (runId: string): string => `run-${runId}`;

export class LangGraphEncoding implements StreamEncoding {
  readonly format = 'langgraph';
  private next = 1;
  private started = false;
  private errorSent = false;
  private finalStatus: RunStatus | null = null;
  private runError: { error: string; message: string } | null = null;
  private readonly modes: ReadonlySet<StreamMode>;

  constructor(private readonly o: LgStreamOptions) {
    this.modes = new Set(o.modes);
  }

  encode(e: RunEvent): string {
    let out = '';
    if (!this.started) {
      this.started = true;
      const meta: LgPart = {
        event: 'metadata',
        data: { run_id: this.o.runId, thread_id: this.o.threadId, attempt: 1 },
      };
      if (this.o.metadata === 'numbered' && this.o.afterId < 0) {
        out += partFrame(0, meta);
      } else if (this.o.metadata === 'unnumbered') {
        out += partFrame(null, meta);
      }
    }
    const visible = this.visible(e);
    for (const [mode, part] of this.partsOf(e)) {
      const id = this.next++;
      if (visible && id > this.o.afterId && (mode === null || this.modes.has(mode))) {
        out += partFrame(id, part);
        if (part.event === 'error') {
          this.errorSent = true;
        }
      }
    }
    if (e.event_type === 'done' && visible) {
      this.finalStatus = (e.payload as { status: RunStatus }).status;
    }
    return out;
  }

  endsAt(e: RunEvent): boolean {
    if (e.event_type !== 'waiting_for_user') {
      return false;
    }
    const from = this.o.waitFrom;
    if (!from) {
      return this.visible(e);
    }
    // A join while the run waits ends at that question even though it came before the join.
    const c = compareSeq(e.seq, from.seq);
    return from.inclusive ? c >= 0 : c > 0;
  }

  async close(): Promise<string> {
    if (this.finalStatus === null) {
      return '';
    }
    const parts = await this.o.final(this.finalStatus, this.errorSent);
    let out = '';
    for (const p of parts) {
      const id = this.next++;
      const mode: StreamMode | null = p.event === 'values' ? 'values' : null;
      if (id > this.o.afterId && (mode === null || this.modes.has(mode))) {
        out += partFrame(id, p);
      }
    }
    return out;
  }

  private visible(e: RunEvent): boolean {
    return this.o.liveAfter === null || compareSeq(e.seq, this.o.liveAfter) > 0;
  }

  /** The parts an event gives, each with the mode it belongs to (null: sent in every mode). */
  private partsOf(e: RunEvent): [StreamMode | null, LgPart][] {
    switch (e.event_type) {
      case 'token': {
        const p = e.payload as { node: string; task_id: string; text: string };
        if (!isAnswerNode(p.node)) {
          return [];
        }
        return [
          [
            'messages-tuple',
            {
              event: 'messages',
              data: [
                {
                  type: 'AIMessageChunk',
                  id: answerChunkId(this.o.runId),
                  content: p.text,
                  name: null,
                  additional_kwargs: {},
                  response_metadata: {},
                  tool_calls: [],
                  invalid_tool_calls: [],
                  tool_call_chunks: [],
                },
                {
                  run_id: this.o.runId,
                  thread_id: this.o.threadId,
                  langgraph_node: p.node,
                  langgraph_checkpoint_ns: '',
                  langgraph_task_id: p.task_id,
                  tags: [],
                },
              ],
            },
          ],
        ];
      }
      case 'action': {
        const { node, ...action } = e.payload as { node: string };
        return [['updates', { event: 'updates', data: { [node]: { action } } }]];
      }
      case 'waiting_for_user': {
        const p = e.payload as { question: string; input_schema: unknown; tool_calls?: unknown[] };
        const interrupt = [
          { id: `${this.o.runId}:${e.seq}`, value: { question: p.question, input_schema: p.input_schema } },
        ];
        return [
          ['values', { event: 'values', data: { __interrupt__: interrupt } }],
          ['updates', { event: 'updates', data: { __interrupt__: interrupt } }],
        ];
      }
      case 'error': {
        // A node's retried failure (it names the node) is no error of the run; the run's own is
        // sent with its `done`, and only if the run failed (a cancelled run just ends).
        const p = e.payload as { code: string; message: string; node?: string };
        if (p.node === undefined) {
          this.runError = { error: p.code, message: p.message };
        }
        return [];
      }
      case 'done': {
        const failed = (e.payload as { status: RunStatus }).status === 'failed';
        return failed && this.runError ? [[null, { event: 'error', data: this.runError }]] : [];
      }
      default:
        return [];
    }
  }
}
