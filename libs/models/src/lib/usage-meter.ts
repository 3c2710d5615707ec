import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { MeteredCall, Usage } from '@switchyard/contracts';
import { LlmCallException } from './llm-errors';
import { ModelsRepository } from './models.repository';

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
 * tenants.tokens_used — here (calls that end together in one statement, see `record`), or, for a
 * node's calls, in the step that applies its delta (`TaskCalls`); before a call, a tenant whose
 * budget is spent is refused with `budget_exceeded` (not retryable: the run fails). A tenant
 * without a budget costs no query: "no budget" is cached for `ttlMs`.
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

  /** `unwritten`: the tenant's tokens of calls made but not written yet (a task's, see TaskCalls). */
  async checkBudget(tenantId: string, unwritten = 0): Promise<void> {
    if (this.unlimited.get(tenantId)) {
      return;
    }
    const row = await this.tables.budget(tenantId);
    this.assertWithin(tenantId, row && { budget: row.budget, used: row.used + unwritten });
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
      this.noteBudgets(await this.tables.recordUsage(calls));
    } catch (err) {
      if (calls.length === 1) {
        this.lost(calls[0], err);
        return;
      }
      // One bad row (say, its model deleted meanwhile) must not lose the others: one at a time.
      for (const call of calls) {
        try {
          this.noteBudgets(await this.tables.recordUsage([call]));
        } catch (oneErr) {
          this.lost(call, oneErr);
        }
      }
    }
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
      msg: `model usage not recorded (${call.total_tokens} tokens)`,
    });
  }
}
