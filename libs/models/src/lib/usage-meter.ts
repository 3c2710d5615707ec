import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { Usage } from '@switchyard/contracts';
import { LlmCallException } from './llm-errors';
import { ModelsRepository } from './models.repository';

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

/** Calls written in one statement at most. */
const MAX_BATCH = 500;

/**
 * Metering and budgets. Every successful call adds a model_usage row and the tokens to
 * tenants.tokens_used (calls that end together in one statement, see `record`); before a call, a tenant whose budget is spent is refused
 * with `budget_exceeded` (not retryable: the run fails). A tenant without a budget costs no query:
 * "no budget" is cached for `ttlMs`.
 */
export class UsageMeter {
  private readonly logger = new Logger('ModelUsage');
  private readonly unlimited: LRUCache<string, true>;
  /** Calls waiting for the next write, and whether a write is under way. */
  private readonly queue: { call: MeteredCall; done: () => void }[] = [];
  private writing = false;

  private readonly tables: ModelsRepository;

  constructor(ds: DataSource, ttlMs: number) {
    this.tables = new ModelsRepository(ds);
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
    this.assertWithin(tenantId, await this.tables.budget(tenantId));
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

  /**
   * Records a successful call: its model_usage row and its tokens on the tenant. Resolves once
   * they are committed (a node's delta goes out after its calls are metered) and never rejects: the
   * call is done and paid for, and failing the step now would only pay for it again, so a write
   * that fails is logged. Calls recorded while a write is under way go out together in the next
   * one — one statement and one commit for many calls, one update of each tenant's row — so a
   * burst of calls does not queue on the tenant's row.
   */
  record(call: MeteredCall): Promise<void> {
    return new Promise((done) => {
      this.queue.push({ call, done });
      this.pump();
    });
  }

  private pump(): void {
    if (this.writing || this.queue.length === 0) {
      return;
    }
    const batch = this.queue.splice(0, MAX_BATCH);
    this.writing = true;
    void this.write(batch.map((b) => b.call)).finally(() => {
      this.writing = false;
      for (const b of batch) {
        b.done();
      }
      this.pump();
    });
  }

  private async write(calls: MeteredCall[]): Promise<void> {
    try {
      this.noteBudgets(await this.insert(calls));
    } catch (err) {
      if (calls.length === 1) {
        this.lost(calls[0], err);
        return;
      }
      // One bad row (say, its model deleted meanwhile) must not lose the others: one at a time.
      for (const call of calls) {
        try {
          this.noteBudgets(await this.insert([call]));
        } catch (oneErr) {
          this.lost(call, oneErr);
        }
      }
    }
  }

  /** One statement (ModelsRepository.recordUsage): the rows inserted, then each tenant's tokens added. */
  private async insert(calls: MeteredCall[]): Promise<{ id: string; budget: number | null; used: number }[]> {
    const rows = calls.map((c) => ({
      tenant_id: c.tenant_id,
      run_id: c.run_id ?? null,
      task_id: c.task_id ?? null,
      node: c.node ?? null,
      attempt: c.attempt ?? null,
      model_id: c.model_id,
      key_id: c.key_id,
      prompt_tokens: c.usage.prompt_tokens,
      completion_tokens: c.usage.completion_tokens,
      total_tokens: c.usage.total_tokens,
      cost: costOf(c.usage, c.price_per_1k_input, c.price_per_1k_output),
      business_id: c.business_id ?? null,
    }));
    return this.tables.recordUsage(JSON.stringify(rows));
  }

  private noteBudgets(rows: { id: string; budget: number | null }[]): void {
    for (const row of rows) {
      if (row.budget === null) {
        this.unlimited.set(row.id, true);
      } else {
        this.unlimited.delete(row.id);
      }
    }
  }

  private lost(call: MeteredCall, err: unknown): void {
    this.logger.error({
      run_id: call.run_id,
      task_id: call.task_id,
      err: err as Error,
      msg: `model usage not recorded (${call.usage.total_tokens} tokens)`,
    });
  }
}
