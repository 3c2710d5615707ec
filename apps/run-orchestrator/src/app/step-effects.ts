import type { EventType } from '@switchyard/contracts';
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
}

export const noEffects = (runId: string): StepEffects => ({ runId, tasks: [], events: [], finished: false });
