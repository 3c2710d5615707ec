import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';
import { type Db, kyselyOf } from '@switchyard/persistence';

/** A delivery due: its run has ended and its next attempt's time has come. */
export interface DueDelivery {
  run_id: string;
  tenant_id: string;
  url: string;
  attempts: number;
}

/** `ms` milliseconds from now (the parameter multiplies an interval, as it always did). */
const inMs = (ms: number | null) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

/** Webhook deliveries (one a run) and the tenants' signing secrets (sealed at rest). */
@Injectable()
export class WebhooksRepository {
  private readonly db: Db;

  constructor(
    @Inject(DataSource) ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {
    this.db = kyselyOf(ds);
  }

  /** The run's webhook: POSTed once the run has ended (a later request for the run replaces the URL). */
  async schedule(runId: string, tenantId: string, url: string): Promise<void> {
    await this.db
      .insertInto('webhook_deliveries')
      .values({ run_id: runId, tenant_id: tenantId, url })
      .onConflict((oc) =>
        oc
          .column('run_id')
          .doUpdateSet({ url: (eb) => eb.ref('excluded.url') })
          .where('webhook_deliveries.delivered_at', 'is', null),
      )
      .execute();
  }

  /** The tenant's signing secret, made on first use. */
  async secret(tenantId: string): Promise<string> {
    const row = await this.db
      .selectFrom('tenants')
      .select('webhook_secret')
      .where('id', '=', tenantId)
      .executeTakeFirst();
    if (!row) {
      throw new Error(`tenant ${tenantId} does not exist`);
    }
    if (row.webhook_secret) {
      return this.box.open(row.webhook_secret);
    }
    return this.rotate(tenantId, true);
  }

  /** A new secret for the tenant (`onlyIfMissing`: keeps one another request made meanwhile). */
  async rotate(tenantId: string, onlyIfMissing = false): Promise<string> {
    const fresh = `whsec_${randomBytes(24).toString('hex')}`;
    let update = this.db
      .updateTable('tenants')
      .set({ webhook_secret: this.box.seal(fresh) })
      .where('id', '=', tenantId);
    if (onlyIfMissing) {
      update = update.where('webhook_secret', 'is', null);
    }
    const updated = await update.returning('webhook_secret').execute();
    if (updated.length) {
      return fresh;
    }
    return this.secret(tenantId);
  }

  /**
   * Claims the deliveries due (their runs ended, their time come) for `leaseMs`: replicas share
   * them (SKIP LOCKED), and one whose sender died is taken again once its lease has passed.
   */
  async claimDue(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return this.db
      .with('due', (db) =>
        db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('runs as r', 'r.id', 'd.run_id')
          .select('d.run_id')
          .where('d.delivered_at', 'is', null)
          .where('d.gave_up_at', 'is', null)
          .where('d.next_at', '<=', sql<Date>`now()`)
          .where('r.status', 'in', [sql.lit('succeeded'), sql.lit('failed'), sql.lit('cancelled')])
          .orderBy('d.next_at')
          .limit(limit)
          .forUpdate('d')
          .skipLocked(),
      )
      .updateTable('webhook_deliveries as w')
      .from('due')
      .set({ next_at: inMs(leaseMs) })
      .whereRef('w.run_id', '=', 'due.run_id')
      .returning(['w.run_id', 'w.tenant_id', 'w.url', 'w.attempts'])
      .execute();
  }

  async delivered(runId: string): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        delivered_at: sql<Date>`now()`,
        attempts: eb('attempts', '+', 1),
        last_error: null,
      }))
      .where('run_id', '=', runId)
      .execute();
  }

  /** A failed attempt: tried again in `retryInMs`, or (null) given up. */
  async failed(runId: string, error: string, retryInMs: number | null): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_error: error.slice(0, 1000),
        next_at: sql<Date>`now() + coalesce(${retryInMs}::bigint, 0) * interval '1 millisecond'`,
        gave_up_at: sql<Date | null>`CASE WHEN ${retryInMs}::bigint IS NULL THEN now() END`,
      }))
      .where('run_id', '=', runId)
      .execute();
  }
}
