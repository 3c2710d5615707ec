import type { EntityManager } from 'typeorm';
import { type Action, ORCHESTRATOR_NODES, unionOfNext } from '@switchyard/contracts';

type Queryable = Pick<EntityManager, 'query'>;

/** Why a version cannot be forked from. */
export type ForkPointProblem = 'not_recorded' | 'inside_step' | 'tasks_pruned';

export class ForkPointError extends Error {
  constructor(
    readonly problem: ForkPointProblem,
    message: string,
  ) {
    super(message);
  }
}

/** A version a thread can branch from, and what was still to run there. */
export interface ForkPoint {
  version: number;
  /** The run whose step ended at this version. */
  run_id: string;
  /** What the step ending here asked for next (empty: the turn ended here). */
  next: string[];
}

/**
 * Reads whether `version` of the thread ends a step — a branch continues from a step boundary,
 * where the join rule decides what runs next — and what was pending there: the union of the
 * step's `next` lists. A version inside a fan-out (some of the step's tasks applied after it, or
 * never) is refused, naming the step's versions.
 */
export async function forkPoint(q: Queryable, threadId: string, version: number): Promise<ForkPoint> {
  const [row] = (await q.query(
    `SELECT node, task_id, run_id, delta->'action' AS action FROM state_deltas WHERE thread_id = $1 AND version = $2`,
    [threadId, version],
  )) as { node: string; task_id: string; run_id: string; action: Action }[];
  if (!row) {
    throw new ForkPointError(
      'not_recorded',
      `version ${version} is not in the thread's log (compacted by retention, or never written)`,
    );
  }
  if (ORCHESTRATOR_NODES.includes(row.node)) {
    return { version, run_id: row.run_id, next: unionOfNext([row.action]) };
  }
  const tasks = (await q.query(
    `SELECT rt.seq, d.version, d.delta->'action' AS action
     FROM run_tasks me
     JOIN run_tasks rt ON rt.run_id = me.run_id AND rt.step = me.step
     LEFT JOIN state_deltas d ON d.task_id = rt.id
     WHERE me.id = $1
     ORDER BY rt.seq`,
    [row.task_id],
  )) as { seq: number; version: number | null; action: Action | null }[];
  if (tasks.length === 0) {
    throw new ForkPointError(
      'tasks_pruned',
      `the task records of run ${row.run_id} are gone (retention), so the step ending at version ${version} is unknown; fork at a turn's end instead`,
    );
  }
  const versions = tasks.map((t) => t.version);
  if (versions.some((v) => v === null || v > version)) {
    const applied = versions.filter((v): v is number => v !== null).sort((a, b) => a - b);
    throw new ForkPointError(
      'inside_step',
      `version ${version} is inside a step of ${tasks.length} parallel tasks (applied at versions ${applied.join(', ')}${
        applied.length < tasks.length ? `; ${tasks.length - applied.length} never finished` : ''
      }); fork at the version that ends a step`,
    );
  }
  return { version, run_id: row.run_id, next: unionOfNext(tasks.map((t) => t.action as Action)) };
}
