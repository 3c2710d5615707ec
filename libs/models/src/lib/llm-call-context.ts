import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which task an LLM call works for. The node runtime sets it around a node's code, so
 * `ChatModels.chat({ role })` needs no extra arguments to meter the call and to find the run's
 * tenant and pinned agent configuration.
 */
export interface LlmCallContext {
  run_id: string;
  thread_id?: string;
  task_id?: string;
  node?: string;
  attempt?: number;
  /** Known up front outside runs (otherwise read from the run's row). */
  tenant_id?: string;
}

const storage = new AsyncLocalStorage<LlmCallContext>();

/** Runs `fn` with `ctx` as the context of every LLM call it makes (awaited work included). */
export function runWithLlmCallContext<T>(ctx: LlmCallContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentLlmCallContext(): LlmCallContext | undefined {
  return storage.getStore();
}
