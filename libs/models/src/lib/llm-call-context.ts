import { AsyncLocalStorage } from 'node:async_hooks';
import { type Usage, ZERO_USAGE } from '@switchyard/contracts';
import type { TaskCalls } from './task-calls';

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
  /** Likewise: the tenant's business the call serves (a run's `metadata.business_id`). */
  business_id?: string;
  /** The task's calls not written yet: a call leaves its row here for the task's delta. */
  calls?: TaskCalls;
}

const storage = new AsyncLocalStorage<LlmCallContext>();

/** Runs `fn` with `ctx` as the context of every LLM call it makes (awaited work included). */
export function runWithLlmCallContext<T>(ctx: LlmCallContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentLlmCallContext(): LlmCallContext | undefined {
  return storage.getStore();
}

const usageSinks = new AsyncLocalStorage<Usage>();

/**
 * Runs `fn` and sums the usage of every metered model call it makes (awaited work included), for
 * a node whose calls happen deep inside a library (e.g. embeddings during a knowledge search).
 */
export async function collectUsage<T>(fn: () => Promise<T>): Promise<{ value: T; usage: Usage }> {
  const usage: Usage = { ...ZERO_USAGE };
  const value = await usageSinks.run(usage, fn);
  return { value, usage };
}

/** Adds a call's usage to the collector of the current `collectUsage`, if any. */
export function addCollectedUsage(u: Usage): void {
  const sink = usageSinks.getStore();
  if (sink) {
    sink.prompt_tokens += u.prompt_tokens;
    sink.completion_tokens += u.completion_tokens;
    sink.total_tokens += u.total_tokens;
  }
}
