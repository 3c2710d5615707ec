import type { RunTranscriptSnapshot } from '@switchyard/client';

/**
 * The active run of each thread, kept in localStorage as `active_run:<threadId>` (seed 004): the
 * run, what the user asked, how many history messages came before the turn, and the transcript
 * of its events so far with the last `seq` taken. A reload, or another tab on the same thread,
 * picks the stream up from there.
 */
export interface ActiveRun {
  prompt: string | null;
  /** How many chat_history messages the thread had before this turn (null: not known). */
  before: number | null;
  transcript: RunTranscriptSnapshot;
}

export const activeRunKey = (threadId: string): string => `active_run:${threadId}`;

export const activeRuns = {
  get(threadId: string): ActiveRun | null {
    const raw = localStorage.getItem(activeRunKey(threadId));
    if (!raw) {
      return null;
    }
    try {
      const kept = JSON.parse(raw) as ActiveRun;
      if (typeof kept?.transcript?.run_id !== 'string') {
        throw new Error('no run id');
      }
      return kept;
    } catch {
      // Not ours, or damaged: the run is found again from the thread's active_run_id.
      localStorage.removeItem(activeRunKey(threadId));
      return null;
    }
  },
  put(threadId: string, run: ActiveRun): void {
    localStorage.setItem(activeRunKey(threadId), JSON.stringify(run));
  },
  /** Forgets the thread's active run, if it is still `runId` (another tab may have started the next). */
  clear(threadId: string, runId: string): void {
    if (this.get(threadId)?.transcript.run_id === runId) {
      localStorage.removeItem(activeRunKey(threadId));
    }
  },
};
