import {
  type Action,
  type CommittedDelta,
  type EventType,
  type RuntimeState,
  actionEventPayload,
} from '@switchyard/contracts';
import type { RecentDeltas } from '@switchyard/state';
import type { TaskRow } from './run-row';

/** What a committed transaction asks to happen next, carried out only after the commit. */
export interface StepEffects {
  runId: string;
  tasks: TaskRow[];
  events: { type: EventType; payload: unknown }[];
  /** The run reached a terminal status: events get their expiry, workers are told to stop. */
  finished: boolean;
  broadcastCancel?: boolean;
  /** The run ended: the next queued run of this thread may start. */
  continueThread?: string;
  /**
   * The run ended or went waiting (either frees its running slot): the tenant's runs held back by
   * its running cap may start.
   */
  continueTenant?: string;
  /** The run went `waiting` in this transaction: it holds no running slot. */
  waiting?: boolean;
  /** A redelivered step: its action events are written again where Redis does not have them. */
  repairActions?: Action[];
  /**
   * Inline steps the transaction ran after its own (InlineNodes): their deltas, in version order,
   * and the state after the last one.
   */
  inlined?: { state: RuntimeState; deltas: { delta: CommittedDelta; bytes: number }[] };
  /** Per task id: committed deltas up to the task's version that go with it (RecentDeltas). */
  deltas?: Map<string, CommittedDelta[]>;
}

export const noEffects = (runId: string): StepEffects => ({ runId, tasks: [], events: [], finished: false });

/** The `action` event of a committed action. */
export function actionEvent(a: Action): { type: 'action'; payload: unknown } {
  return { type: 'action', payload: actionEventPayload(a) };
}

/** The JSON bytes of deltas the step wrote to the log (counted as it wrote them). */
export function sumBytes(deltas: readonly { bytes: number }[]): number {
  let bytes = 0;
  for (const d of deltas) {
    bytes += d.bytes;
  }
  return bytes;
}

/**
 * Records the committed deltas of `threadId` from version `base` + 1 on (RecentDeltas) and gives
 * each task of `effects` those its service has not seen, up to the state it runs on — so a node
 * service need not read them back from Postgres (where jsonb would also lose their key order).
 */
export function shipRecentDeltas(
  effects: StepEffects,
  recent: RecentDeltas,
  threadId: string,
  base: number,
  deltas: { delta: CommittedDelta; bytes: number }[],
  version: number,
): void {
  recent.record(threadId, base, deltas);
  effects.deltas = new Map(
    effects.tasks.map((t) => [t.id, recent.forTask(threadId, t.subject.split('.')[2], version)]),
  );
}
