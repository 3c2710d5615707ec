import {
  type EventPayload,
  type RunEvent,
  type RunStatus,
  compareSeq,
  isAnswerNode,
} from '@switchyard/contracts';
import { TokenText, type TokenTextState } from './token-text';
import type { ResetEvent } from './types';

/** A run as its events told it so far: JSON, kept by a front end to pick the stream up again. */
export interface RunTranscriptSnapshot {
  run_id: string;
  /** The last event taken: the stream resumes after it (`Last-Event-ID`). */
  last_seq: string | null;
  status: RunStatus;
  /** The answer nodes' tokens (see {@link TokenText}). */
  answer: TokenTextState;
  /** The run's committed steps, in order. */
  steps: { id: number; node: string; summary: string; failed: boolean }[];
  /** Nodes started and not yet answered by a step. */
  running: { node: string; task_id: string }[];
  /** What the run asks while it waits for the user. */
  waiting: EventPayload<'waiting_for_user'> | null;
  error: EventPayload<'error'> | null;
  /** `done` came: the run ended with `status`. */
  ended: boolean;
}

/**
 * What a chat front end shows of one run, made from its events: the answer's text, progress, the
 * question it waits on. Events are taken once each, by `seq` (a replayed or repeated event is
 * skipped), so a page may resume the stream from `last_seq` after a reload — or from the start —
 * and show no repeated and no missing text. A `reset` (the gateway replays a history it lost)
 * starts the transcript over.
 */
export class RunTranscript {
  private s: RunTranscriptSnapshot;
  private text: TokenText;

  constructor(runId: string, snapshot?: RunTranscriptSnapshot) {
    if (snapshot && snapshot.run_id !== runId) {
      throw new Error(`the snapshot is of run ${snapshot.run_id}, not ${runId}`);
    }
    this.s = snapshot ? structuredClone(snapshot) : RunTranscript.empty(runId);
    this.text = new TokenText(this.s.answer);
  }

  private static empty(runId: string): RunTranscriptSnapshot {
    return {
      run_id: runId,
      last_seq: null,
      status: 'queued',
      answer: [],
      steps: [],
      running: [],
      waiting: null,
      error: null,
      ended: false,
    };
  }

  /** Takes an event; false when it was taken before (its seq is not after `last_seq`). */
  add(event: RunEvent | ResetEvent): boolean {
    if (event.event_type === 'reset') {
      this.s = RunTranscript.empty(this.s.run_id);
      this.text = new TokenText();
      return true;
    }
    if (this.s.last_seq !== null && compareSeq(event.seq, this.s.last_seq) <= 0) {
      return false;
    }
    this.s.last_seq = event.seq;
    switch (event.event_type) {
      case 'status': {
        this.s.status = (event.payload as EventPayload<'status'>).status;
        if (this.s.status !== 'waiting') {
          this.s.waiting = null;
        }
        break;
      }
      case 'node_started': {
        const p = event.payload as EventPayload<'node_started'>;
        this.s.running = [
          ...this.s.running.filter((r) => r.task_id !== p.task_id),
          { node: p.node, task_id: p.task_id },
        ];
        if (isAnswerNode(p.node)) {
          this.text.add(event);
        }
        break;
      }
      case 'token': {
        if (isAnswerNode((event.payload as EventPayload<'token'>).node)) {
          this.text.add(event);
        }
        break;
      }
      case 'action': {
        const p = event.payload as EventPayload<'action'>;
        this.s.steps.push({ id: p.id, node: p.node, summary: p.summary, failed: !!p.error });
        const i = this.s.running.findIndex((r) => r.node === p.node);
        if (i >= 0) {
          this.s.running.splice(i, 1);
        }
        break;
      }
      case 'waiting_for_user': {
        this.s.waiting = event.payload as EventPayload<'waiting_for_user'>;
        this.s.status = 'waiting';
        break;
      }
      case 'error': {
        this.s.error = event.payload as EventPayload<'error'>;
        break;
      }
      case 'done': {
        this.s.status = (event.payload as EventPayload<'done'>).status;
        this.s.ended = true;
        this.s.running = [];
        this.s.waiting = null;
        break;
      }
    }
    this.s.answer = this.text.state();
    return true;
  }

  get runId(): string {
    return this.s.run_id;
  }

  get lastSeq(): string | null {
    return this.s.last_seq;
  }

  /** The answer's text so far. */
  get answer(): string {
    return this.text.text;
  }

  get status(): RunStatus {
    return this.s.status;
  }

  get ended(): boolean {
    return this.s.ended;
  }

  get steps(): readonly RunTranscriptSnapshot['steps'][number][] {
    return this.s.steps;
  }

  get running(): readonly RunTranscriptSnapshot['running'][number][] {
    return this.s.running;
  }

  get waiting(): EventPayload<'waiting_for_user'> | null {
    return this.s.waiting;
  }

  get error(): EventPayload<'error'> | null {
    return this.s.error;
  }

  /** A copy of what it holds, to keep (JSON) and pass back to the constructor. */
  snapshot(): RunTranscriptSnapshot {
    return structuredClone(this.s);
  }
}
