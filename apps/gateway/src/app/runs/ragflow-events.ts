import { ASK_USER, type RunEvent, type RunStatus, componentIdOfNode } from '@switchyard/contracts';

/** The default agent's answer node. */
const ANSWER_NODE = 'output';

/**
 * A graph run's events in RAGFlow's own stream vocabulary (`GET /v1/runs/:id/events?format=ragflow`),
 * so a client written for RAGFlow's agent completions can follow a run on Switchyard.
 *
 * Each frame's `data` is RAGFlow's envelope `{event, message_id, created_at, task_id, session_id,
 * data}`; the SSE `id` stays Switchyard's event id, so `Last-Event-ID` resumes as on the native
 * stream. The mapping (docs/graph-agents.md):
 *
 * | Switchyard                          | RAGFlow                                                  |
 * |-------------------------------------|----------------------------------------------------------|
 * | first `status: running`             | `workflow_started {inputs}`                              |
 * | `node_started` of `graph.*`         | `node_started {component_id, component_name, component_type}` |
 * | `token` of a Message component      | `message {content}` (`<think>…</think>`: three, marked)  |
 * | `action` of `graph.*`               | (`message_end {}` for a Message) `node_finished {…, error}` |
 * | `waiting_for_user` (UserFillUp)     | `user_inputs {inputs, tips}`                             |
 * | `error`                             | `error {code, message}`                                  |
 * | `done` succeeded / cancelled        | `workflow_finished {outputs}` (`"Task has been canceled"`) |
 * | (an agent that is no canvas) `output`'s tokens, its action | `message {content}`, `message_end {}` |
 *
 * Everything else (the orchestrator's own nodes, heartbeats, other statuses) has no RAGFlow
 * counterpart and is left out.
 */
/** What the stream needs to know of a component of the run's canvas. */
export interface RagflowComponent {
  type: string;
  name: string;
  parentId?: string;
  /** The Messages an Agent streams into: its `node_finished` follows the first one's end. */
  streamsInto?: readonly string[];
}

export interface RagflowRunContext {
  runId: string;
  threadId: string;
  /** The run's Begin form inputs (RAGFlow echoes them in `workflow_started`). */
  inputs: Record<string, unknown>;
  /** component id → its class (`component_type`) and display name, from the DSL the run pinned. */
  components: ReadonlyMap<string, RagflowComponent>;
  /**
   * A run of an agent that is not a canvas (the default agent, say): its answer node's tokens are
   * `message`s and its end a `message_end`, as a canvas's Message would show them.
   */
  plainAgent?: boolean;
}

/** What `workflow_finished` reports: read from the run once it is over. */
export interface RagflowRunEnd {
  status: RunStatus;
  answer: string | null;
  /** The outputs of the last component that ran (RAGFlow's `workflow_finished.outputs`). */
  lastOutputs: Record<string, unknown> | null;
  startedAt: number | null;
  finishedAt: number | null;
}

interface ActionPayload {
  node: string;
  next?: string[];
  error?: { code: string; message: string };
  /** A failed component's default value, shown under its exception policy. */
  message?: string;
  /** The files a Message offers (DocGenerator's documents). */
  downloads?: Record<string, unknown>[];
}

export class RagflowEventEncoder {
  private started = false;
  private seenDone = false;
  private lastId = '';
  /** A UserFillUp's `node_started`, held until its action says whether it only asked (RAGFlow shows only the run with the answer). */
  private readonly held = new Map<string, string>();
  /** A streaming Agent's `node_finished`, held until a Message it streams into has ended. */
  private readonly deferred = new Map<string, { agent: string; frame: string }[]>();

  constructor(private readonly ctx: RagflowRunContext) {}

  /** The frames for one Switchyard event ('' when it has no RAGFlow counterpart). */
  encode(e: RunEvent): string {
    this.lastId = e.seq;
    const at = Math.floor(e.ts / 1000);
    switch (e.event_type) {
      case 'status': {
        const { status } = e.payload as { status: RunStatus };
        if (status === 'running' && !this.started) {
          this.started = true;
          return this.frame(e.seq, 'workflow_started', at, { inputs: this.ctx.inputs });
        }
        return '';
      }
      case 'node_started': {
        const id = componentIdOfNode((e.payload as { node: string }).node);
        if (id === undefined) {
          return '';
        }
        const text = this.frame(e.seq, 'node_started', at, {
          inputs: null,
          created_at: at,
          ...this.component(id),
        });
        if (this.typeOf(id) === 'UserFillUp') {
          this.held.set(id, text);
          return '';
        }
        return text;
      }
      case 'token': {
        const { node, text } = e.payload as { node: string; text: string };
        const id = componentIdOfNode(node);
        if (id === undefined && this.ctx.plainAgent && node === ANSWER_NODE) {
          return this.frame(e.seq, 'message', at, { content: text });
        }
        if (id === undefined || this.typeOf(id) !== 'Message') {
          return '';
        }
        // An Agent's tool note streams as thinking: RAGFlow marks it with empty messages around it.
        const think = /^<think>([\s\S]*)<\/think>$/.exec(text);
        return think
          ? this.frame(e.seq, 'message', at, { content: '', start_to_think: true }) +
              this.frame(e.seq, 'message', at, { content: think[1] }) +
              this.frame(e.seq, 'message', at, { content: '', end_to_think: true })
          : this.frame(e.seq, 'message', at, { content: text });
      }
      case 'action': {
        const a = e.payload as ActionPayload;
        const id = componentIdOfNode(a.node);
        if (id === undefined) {
          return this.ctx.plainAgent && a.node === ANSWER_NODE && !a.error
            ? this.frame(e.seq, 'message_end', at, {})
            : '';
        }
        const held = this.held.get(id) ?? '';
        this.held.delete(id);
        if (a.next?.includes(ASK_USER.name) && this.typeOf(id) === 'UserFillUp') {
          return ''; // it asked for its form; it runs again with the answer
        }
        const type = this.typeOf(id);
        if ((type === 'Iteration' || type === 'Loop') && !a.error) {
          return held; // RAGFlow finishes them when their item runs out
        }
        const finished = (cid: string) =>
          this.frame(e.seq, 'node_finished', at, {
            ...this.component(cid),
            error: a.error ? a.error.message : null,
            created_at: at,
          });
        // RAGFlow shows a failed component's default value as a message of its own (exception policy).
        const shown =
          typeof a.message === 'string'
            ? this.frame(e.seq, 'message', at, { content: a.message }) +
              this.frame(e.seq, 'message_end', at, {})
            : '';
        // The files a Message offers (DocGenerator's) ride on its message_end, as in RAGFlow.
        const downloads = a.downloads;
        const end =
          type === 'Message'
            ? this.frame(
                e.seq,
                'message_end',
                at,
                Array.isArray(downloads) && downloads.length ? { downloads } : {},
              )
            : '';
        const streamsInto = this.ctx.components.get(id)?.streamsInto ?? [];
        if (streamsInto.length && !a.error) {
          // RAGFlow's Agent finishes after the Message that shows its stream.
          for (const m of streamsInto) {
            this.deferred.set(m, [...(this.deferred.get(m) ?? []), { agent: id, frame: finished(id) }]);
          }
          return held + shown;
        }
        const agentsDone = this.takeDeferred(id);
        const parent = this.ctx.components.get(id)?.parentId;
        const itemEnded =
          (type === 'IterationItem' || type === 'LoopItem') &&
          parent !== undefined &&
          !(a.next ?? []).some((n) => {
            const next = componentIdOfNode(n);
            return next !== undefined && this.ctx.components.get(next)?.parentId === parent;
          });
        return held + shown + end + agentsDone + finished(id) + (itemEnded ? finished(parent) : '');
      }
      case 'waiting_for_user': {
        const w = e.payload as { question: string; input_schema: unknown };
        return this.frame(e.seq, 'user_inputs', at, { inputs: formOf(w.input_schema), tips: w.question });
      }
      case 'error': {
        const { code, message } = e.payload as { code: string; message: string };
        return this.frame(e.seq, 'error', at, { code, message });
      }
      case 'done':
        this.seenDone = true;
        // Agents whose Message never ran finish before the workflow does.
        return [...this.deferred.keys()].map((m) => this.takeDeferred(m)).join('');
      default:
        return '';
    }
  }

  /** After `done`: RAGFlow's closing `workflow_finished` (none for a failed run: `error` said it). */
  get needsEnd(): boolean {
    return this.seenDone;
  }

  end(run: RagflowRunEnd): string {
    const at = Math.floor((run.finishedAt ?? Date.now()) / 1000);
    const elapsed =
      run.startedAt !== null && run.finishedAt !== null ? (run.finishedAt - run.startedAt) / 1000 : null;
    const base = { inputs: this.ctx.inputs, elapsed_time: elapsed, created_at: at };
    if (run.status === 'succeeded') {
      return this.frame(this.lastId, 'workflow_finished', at, {
        ...base,
        outputs: run.lastOutputs ?? { content: run.answer ?? '' },
      });
    }
    if (run.status === 'cancelled') {
      return this.frame(this.lastId, 'workflow_finished', at, { ...base, outputs: 'Task has been canceled' });
    }
    return '';
  }

  /** An `error` frame for what went wrong after the run's own events. */
  failure(message: string): string {
    return this.frame(this.lastId, 'error', Math.floor(Date.now() / 1000), { code: 'unavailable', message });
  }

  /** The held `node_finished` frames of the Agents streaming into Message `id`, each once. */
  private takeDeferred(id: string): string {
    const waiting = this.deferred.get(id) ?? [];
    this.deferred.delete(id);
    const out = waiting.map((w) => w.frame);
    for (const w of waiting) {
      for (const [m, list] of this.deferred) {
        const rest = list.filter((x) => x.agent !== w.agent);
        if (rest.length) {
          this.deferred.set(m, rest);
        } else {
          this.deferred.delete(m);
        }
      }
    }
    return out.join('');
  }

  private typeOf(id: string): string {
    return this.ctx.components.get(id)?.type ?? id.split(':')[0];
  }

  private component(id: string) {
    const name = this.ctx.components.get(id)?.name ?? id;
    return { component_id: id, component_name: name, component_type: this.typeOf(id) };
  }

  private frame(id: string, event: string, createdAt: number, data: unknown): string {
    const envelope = {
      event,
      message_id: this.ctx.runId,
      created_at: createdAt,
      task_id: this.ctx.runId,
      session_id: this.ctx.threadId,
      data,
    };
    return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(envelope)}\n\n`;
  }
}

/**
 * RAGFlow's form of a UserFillUp's fields, `{key: {name, type, optional, options?, value: null}}`,
 * from the question's JSON Schema (a UserFillUp keeps each field's definition under
 * `x-ragflow-field`; any other schema gets a `line` field per property).
 */
export function formOf(schema: unknown): Record<string, unknown> {
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(s.required ?? []);
  return Object.fromEntries(
    Object.entries(s.properties ?? {}).map(([key, prop]) => {
      const field = prop['x-ragflow-field'];
      if (field && typeof field === 'object') {
        return [key, { ...(field as Record<string, unknown>), value: null }];
      }
      const name = typeof prop['description'] === 'string' ? prop['description'] : key;
      return [key, { name, type: 'line', optional: !required.has(key), value: null }];
    }),
  );
}

/** The run's facts the RAGFlow stream needs, read from Postgres (`runs`). */
export interface RagflowRunSource {
  context(runId: string): Promise<RagflowRunContext>;
  end(runId: string): Promise<RagflowRunEnd>;
}

/** RAGFlow's vocabulary as a {@link StreamEncoding}: reads the run's end once `done` was sent. */
export function ragflowEncoding(
  source: RagflowRunSource,
  ctx: RagflowRunContext,
): { format: string; encode(e: RunEvent): string; close(): Promise<string> } {
  const encoder = new RagflowEventEncoder(ctx);
  return {
    format: 'ragflow',
    encode: (e) => encoder.encode(e),
    close: async () => {
      try {
        return encoder.end(await source.end(ctx.runId));
      } catch (err) {
        return encoder.failure(`the run's outputs could not be read: ${(err as Error).message}`);
      }
    },
  };
}
