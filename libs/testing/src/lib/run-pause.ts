import { waitFor } from './free-port';
import type { TestStack } from './test-stack';

/** What a waiting run asks (the `runs.waiting` column). */
export interface RunPause {
  task_id: string;
  question: string;
}

/**
 * Waits until the run waits on a pause other than `after` (each pause is a new `ask_user` task,
 * so the one just answered must not count) and returns it.
 */
export async function nextPause(stack: TestStack, runId: string, after = ''): Promise<RunPause> {
  return waitFor('the run to wait for the form', async () => {
    const [row] = await stack.sql<{ waiting: RunPause | null }>(
      `SELECT waiting FROM runs WHERE id = $1 AND status = 'waiting'`,
      [runId],
    );
    return row?.waiting && row.waiting.task_id !== after ? row.waiting : undefined;
  });
}
