import { z } from 'zod';
import { loadConfig } from '@switchyard/config';

const schema = z.object({
  // How many ready todos one planner step works on at once (one tool-calling LLM call each).
  SWITCHYARD_PLANNER_MAX_PARALLEL: z.coerce.number().int().min(1).max(20).default(3),
  // The longest a planner step waits for a todo's retry_after before handing back to itself;
  // keep it well below SWITCHYARD_TASK_TIMEOUT_MS so the reaper never takes the step for lost.
  SWITCHYARD_TODO_RETRY_MAX_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  // The thread's earlier messages the planner sees, in tokens (estimated at 4 characters each):
  // the newest first, older ones left out. Keep it well inside the planner model's context window.
  SWITCHYARD_PLANNER_HISTORY_TOKENS: z.coerce.number().int().min(0).max(1_000_000).default(4_000),
});

export class PlannerConfig {
  readonly maxParallel: number;
  readonly maxRetryWaitMs: number;
  readonly historyTokens: number;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.maxParallel = cfg.SWITCHYARD_PLANNER_MAX_PARALLEL;
    this.maxRetryWaitMs = cfg.SWITCHYARD_TODO_RETRY_MAX_MS;
    this.historyTokens = cfg.SWITCHYARD_PLANNER_HISTORY_TOKENS;
  }
}
