import { Inject, Injectable } from '@nestjs/common';
import { type Selectable, sql } from 'kysely';
import { DataSource } from 'typeorm';
import { isUuid } from '@switchyard/contracts';
import { type DB, type Db, kyselyOf, kyselyTransaction } from '@switchyard/persistence';
import { ApiException } from '../http/api.exception';
import type { CronSearch } from './langgraph.schemas';

export interface CronRow {
  id: string;
  tenant_id: string;
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  timezone: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  end_time: Date | null;
  enabled: boolean;
  next_run_at: Date | null;
  last_run_id: string | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

const SORT = {
  cron_id: 'id',
  assistant_id: 'assistant_id',
  thread_id: 'thread_id',
  next_run_date: 'next_run_at',
  end_time: 'end_time',
  created_at: 'created_at',
  updated_at: 'updated_at',
} as const satisfies Record<CronSearch['sort_by'], keyof DB['crons']>;

/** A cron's payload and metadata hold the JSON objects `save` wrote. */
function cronRow(r: Selectable<DB['crons']>): CronRow {
  return {
    ...r,
    payload: r.payload as CronRow['payload'],
    metadata: r.metadata as CronRow['metadata'],
  };
}

/** The crons' queries; a cron is its tenant's alone. */
@Injectable()
export class CronsRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** Stores a new cron, or a cron's new settings (its tenant, assistant and thread never change). */
  async save(c: Omit<CronRow, 'created_at' | 'updated_at' | 'last_run_id' | 'last_error'>): Promise<void> {
    await this.db
      .insertInto('crons')
      .values({
        id: c.id,
        tenant_id: c.tenant_id,
        assistant_id: c.assistant_id,
        thread_id: c.thread_id,
        schedule: c.schedule,
        timezone: c.timezone,
        payload: JSON.stringify(c.payload),
        metadata: JSON.stringify(c.metadata),
        end_time: c.end_time,
        enabled: c.enabled,
        next_run_at: c.next_run_at,
      })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          schedule: eb.ref('excluded.schedule'),
          timezone: eb.ref('excluded.timezone'),
          payload: eb.ref('excluded.payload'),
          metadata: eb.ref('excluded.metadata'),
          end_time: eb.ref('excluded.end_time'),
          enabled: eb.ref('excluded.enabled'),
          next_run_at: eb.ref('excluded.next_run_at'),
          updated_at: sql<Date>`now()`,
        })),
      )
      .execute();
  }

  async getOrThrow(tenantId: string, id: string): Promise<CronRow> {
    const row = isUuid(id)
      ? await this.db
          .selectFrom('crons')
          .selectAll()
          .where('id', '=', id)
          .where('tenant_id', '=', tenantId)
          .executeTakeFirst()
      : undefined;
    if (!row) {
      throw ApiException.notFound(`cron "${id}"`);
    }
    return cronRow(row);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    await this.getOrThrow(tenantId, id);
    await this.db.deleteFrom('crons').where('id', '=', id).execute();
  }

  async search(tenantId: string, q: CronSearch): Promise<CronRow[]> {
    const asc = q.sort_order === 'asc';
    let qb = this.filtered(tenantId, q);
    if (q.enabled !== undefined) {
      qb = qb.where('enabled', '=', q.enabled);
    }
    const rows = await qb
      .selectAll()
      .orderBy(SORT[q.sort_by], (ob) => (asc ? ob.asc() : ob.desc()).nullsLast())
      .orderBy('id', (ob) => (asc ? ob.asc() : ob.desc()))
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    return rows.map(cronRow);
  }

  async count(tenantId: string, q: { assistant_id?: string; thread_id?: string }): Promise<number> {
    const { n } = await this.filtered(tenantId, q)
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return n;
  }

  /**
   * The due crons, locked for `work` (one replica fires each: SKIP LOCKED); `work` answers each
   * one's next firing, stored when it returns.
   */
  async fireDue(
    limit: number,
    work: (due: CronRow) => Promise<{ next: Date | null; runId: string | null; error: string | null }>,
  ): Promise<number> {
    return kyselyTransaction(this.ds, async (db) => {
      const due = await db
        .selectFrom('crons')
        .selectAll()
        .where('enabled', '=', true)
        .where('next_run_at', '<=', sql<Date>`now()`)
        .orderBy('next_run_at')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const c of due) {
        const out = await work(cronRow(c));
        await db
          .updateTable('crons')
          .set((eb) => ({
            next_run_at: out.next,
            last_run_id: eb.fn.coalesce(eb.val(out.runId), 'last_run_id'),
            last_error: out.error,
            updated_at: sql<Date>`now()`,
          }))
          .where('id', '=', c.id)
          .execute();
      }
      return due.length;
    });
  }

  /** The tenant's crons, of the assistant and in the thread when named. */
  private filtered(tenantId: string, q: { assistant_id?: string; thread_id?: string }) {
    let qb = this.db.selectFrom('crons').where('tenant_id', '=', tenantId);
    if (q.assistant_id !== undefined) {
      qb = qb.where('assistant_id', '=', q.assistant_id);
    }
    if (q.thread_id !== undefined) {
      qb = qb.where('thread_id', '=', q.thread_id);
    }
    return qb;
  }
}
