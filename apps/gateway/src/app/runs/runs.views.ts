import type { CancelledRunView, CreatedRunView, ResumedRunView, Usage } from '@switchyard/contracts';
import type { RunRecord, UsageByModel } from './runs.repository';

// How /v1/runs shows a run (docs/api.md): pure mappings from its rows, no I/O.

/** The answer to `POST /v1/runs` (CreatedRunSchema in @switchyard/contracts). */
export type CreatedRun = CreatedRunView;

/** A created run as `POST /v1/runs` answers it: queued (a repeated request_id repeats the first answer). */
export function createdRunView(row: { id: string; thread_id: string; created_at: Date }): CreatedRun {
  return {
    run_id: row.id,
    thread_id: row.thread_id,
    status: 'queued',
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The answer to `POST /v1/runs/:id/cancel`: `cancelled` when it already was (the 200), else `cancelling`. */
export function cancelledRunView(runId: string, already: boolean): CancelledRunView {
  return { run_id: runId, status: already ? 'cancelled' : 'cancelling' };
}

/** The answer to `POST /v1/runs/:id/resume`: the answer was taken, the run goes on. */
export function resumedRunView(runId: string): ResumedRunView {
  return { run_id: runId, status: 'resuming' };
}

/** The run's metered usage: the sum of its model calls' usage. */
export function meteredUsageOf(byModel: readonly UsageByModel[]): Usage {
  return byModel.reduce(
    (u, m) => ({
      prompt_tokens: u.prompt_tokens + m.prompt_tokens,
      completion_tokens: u.completion_tokens + m.completion_tokens,
      total_tokens: u.total_tokens + m.total_tokens,
    }),
    { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  );
}

export function runView(run: RunRecord) {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    run_id: run.id,
    thread_id: run.thread_id,
    agent_id: run.agent_id,
    agent_version_id: run.agent_version_id ?? null,
    turn: run.turn,
    status: run.status,
    priority: run.priority,
    created_at: new Date(run.created_at).toISOString(),
    started_at: iso(run.started_at),
    finished_at: iso(run.finished_at),
    steps: run.steps,
    usage: run.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    output: run.output ?? null,
    error: run.error ?? null,
    metadata: run.metadata ?? {},
  };
}
