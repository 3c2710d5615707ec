import { Counter, register } from 'prom-client';
import type { Usage } from '@switchyard/contracts';

const counter = (name: string, help: string, labelNames: string[]): Counter =>
  (register.getSingleMetric(name) as Counter | undefined) ?? new Counter({ name, help, labelNames });

/** Every model call a key was leased for, by how it ended. */
export const llmCalls = counter('switchyard_llm_calls_total', 'Model calls, by model and outcome', [
  'model',
  'outcome',
]);

/** A key failed and the call moved on to the next one (or ran out of keys). */
export const llmFailovers = counter(
  'switchyard_llm_failovers_total',
  'Model calls moved to another key after a failure, by model and reason',
  ['model', 'reason'],
);

export const llmTokens = counter('switchyard_llm_tokens_total', 'Tokens metered, by model and kind', [
  'model',
  'kind',
]);

export const llmCost = counter(
  'switchyard_llm_cost_total',
  "Cost metered in the model's price unit (per 1k tokens as registered), by model",
  ['model'],
);

/** Counts one metered call's tokens and cost. */
export function countUsage(model: string, usage: Usage, cost: number): void {
  llmCalls.inc({ model, outcome: 'ok' });
  llmTokens.inc({ model, kind: 'prompt' }, usage.prompt_tokens);
  llmTokens.inc({ model, kind: 'completion' }, usage.completion_tokens);
  if (cost > 0) {
    llmCost.inc({ model }, cost);
  }
}
