import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { Usage } from '@switchyard/contracts';
import { LlmCallException } from './llm-errors';

export interface MeteredCall {
  tenant_id: string;
  business_id?: string;
  run_id?: string;
  task_id?: string;
  node?: string;
  attempt?: number;
  model_id: string;
  key_id: string | null;
  usage: Usage;
  price_per_1k_input: number;
  price_per_1k_output: number;
}

export function costOf(usage: Usage, perKIn: number, perKOut: number): number {
  // numeric(14,6) in the table: round here so the sum of rows equals what was stored.
  return (
    Math.round(((usage.prompt_tokens / 1000) * perKIn + (usage.completion_tokens / 1000) * perKOut) * 1e6) /
    1e6
  );
}

/**
 * Metering and budgets. Every successful call adds a model_usage row and the tokens to
 * tenants.tokens_used in one statement; before a call, a tenant whose budget is spent is refused
 * with `budget_exceeded` (not retryable: the run fails). A tenant without a budget costs no query:
 * "no budget" is cached for `ttlMs`.
 */
export class UsageMeter {
  private readonly logger = new Logger('ModelUsage');
  private readonly unlimited: LRUCache<string, true>;

  constructor(
    private readonly ds: DataSource,
    ttlMs: number,
  ) {
    this.unlimited = new LRUCache<string, true>({ max: 10_000, ttl: Math.max(1, ttlMs) });
  }

  /** A budget may have been set: ask the database again for every tenant. */
  forgetUnlimited(): void {
    this.unlimited.clear();
  }

  async checkBudget(tenantId: string): Promise<void> {
    if (this.unlimited.get(tenantId)) {
      return;
    }
    const [row] = (await this.ds.query(
      'SELECT token_budget::float8 AS budget, tokens_used::float8 AS used FROM tenants WHERE id = $1',
      [tenantId],
    )) as { budget: number | null; used: number }[];
    this.assertWithin(tenantId, row);
  }

  private assertWithin(tenantId: string, row: { budget: number | null; used: number } | undefined): void {
    if (!row || row.budget === null) {
      this.unlimited.set(tenantId, true);
      return;
    }
    this.unlimited.delete(tenantId);
    if (row.used >= row.budget) {
      throw new LlmCallException(
        `the tenant's token budget is spent (${row.used} of ${row.budget} tokens used)`,
        'budget_exceeded',
        false,
      );
    }
  }

  async record(call: MeteredCall): Promise<void> {
    const u = call.usage;
    try {
      const [row] = (await this.ds.query(
        `WITH used AS (
           INSERT INTO model_usage (tenant_id, run_id, task_id, node, attempt, model_id, key_id,
                                    prompt_tokens, completion_tokens, total_tokens, cost, business_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::integer, $11, $12)
         )
         UPDATE tenants SET tokens_used = tokens_used + $10::integer WHERE id = $1
         RETURNING token_budget::float8 AS budget, tokens_used::float8 AS used`,
        [
          call.tenant_id,
          call.run_id ?? null,
          call.task_id ?? null,
          call.node ?? null,
          call.attempt ?? null,
          call.model_id,
          call.key_id,
          u.prompt_tokens,
          u.completion_tokens,
          u.total_tokens,
          costOf(u, call.price_per_1k_input, call.price_per_1k_output),
          call.business_id ?? null,
        ],
      )) as { budget: number | null; used: number }[];
      if (row?.budget === null) {
        this.unlimited.set(call.tenant_id, true);
      } else if (row) {
        this.unlimited.delete(call.tenant_id);
      }
    } catch (err) {
      // The call is done and paid for; failing the step now would only pay for it again.
      this.logger.error({
        run_id: call.run_id,
        task_id: call.task_id,
        err: err as Error,
        msg: `model usage not recorded (${u.total_tokens} tokens)`,
      });
    }
  }
}
