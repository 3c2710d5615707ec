import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { isUuid } from '@switchyard/contracts';
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

const SORT: Record<CronSearch['sort_by'], string> = {
  cron_id: 'id',
  assistant_id: 'assistant_id',
  thread_id: 'thread_id',
  next_run_date: 'next_run_at',
  end_time: 'end_time',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

/** The crons' queries; a cron is its tenant's alone. */
@Injectable()
export class CronsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Stores a new cron, or a cron's new settings (its tenant, assistant and thread never change). */
  async save(c: Omit<CronRow, 'created_at' | 'updated_at' | 'last_run_id' | 'last_error'>): Promise<void> {
    await this.ds.query(
      `INSERT INTO crons (id, tenant_id, assistant_id, thread_id, schedule, timezone, payload, metadata, end_time,
                          enabled, next_run_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO UPDATE SET schedule = EXCLUDED.schedule, timezone = EXCLUDED.timezone,
         payload = EXCLUDED.payload, metadata = EXCLUDED.metadata, end_time = EXCLUDED.end_time,
         enabled = EXCLUDED.enabled, next_run_at = EXCLUDED.next_run_at, updated_at = now()`,
      [
        c.id,
        c.tenant_id,
        c.assistant_id,
        c.thread_id,
        c.schedule,
        c.timezone,
        JSON.stringify(c.payload),
        JSON.stringify(c.metadata),
        c.end_time,
        c.enabled,
        c.next_run_at,
      ],
    );
  }

  async getOrThrow(tenantId: string, id: string): Promise<CronRow> {
    const [row] = isUuid(id)
      ? ((await this.ds.query('SELECT * FROM crons WHERE id = $1 AND tenant_id = $2', [
          id,
          tenantId,
        ])) as CronRow[])
      : [];
    if (!row) {
      throw ApiException.notFound(`cron "${id}"`);
    }
    return row;
  }

  async delete(tenantId: string, id: string): Promise<void> {
    await this.getOrThrow(tenantId, id);
    await this.ds.query('DELETE FROM crons WHERE id = $1', [id]);
  }

  async search(tenantId: string, q: CronSearch): Promise<CronRow[]> {
    const dir = q.sort_order === 'asc' ? 'ASC' : 'DESC';
    return (await this.ds.query(
      `SELECT * FROM crons WHERE tenant_id = $1 AND ($2::text IS NULL OR assistant_id = $2)
         AND ($3::uuid IS NULL OR thread_id = $3) AND ($4::boolean IS NULL OR enabled = $4)
       ORDER BY ${SORT[q.sort_by]} ${dir} NULLS LAST, id ${dir} LIMIT $5 OFFSET $6`,
      [tenantId, q.assistant_id ?? null, q.thread_id ?? null, q.enabled ?? null, q.limit, q.offset],
    )) as CronRow[];
  }

  async count(tenantId: string, q: { assistant_id?: string; thread_id?: string }): Promise<number> {
    const [{ n }] = (await this.ds.query(
      `SELECT count(*)::int AS n FROM crons WHERE tenant_id = $1 AND ($2::text IS NULL OR assistant_id = $2)
         AND ($3::uuid IS NULL OR thread_id = $3)`,
      [tenantId, q.assistant_id ?? null, q.thread_id ?? null],
    )) as { n: number }[];
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
    return this.ds.transaction(async (m: EntityManager) => {
      const due = (await m.query(
        `SELECT * FROM crons WHERE enabled AND next_run_at <= now() ORDER BY next_run_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      )) as CronRow[];
      for (const c of due) {
        const out = await work(c);
        await m.query(
          `UPDATE crons SET next_run_at = $2, last_run_id = coalesce($3, last_run_id), last_error = $4, updated_at = now()
           WHERE id = $1`,
          [c.id, out.next, out.runId, out.error],
        );
      }
      return due.length;
    });
  }
}
