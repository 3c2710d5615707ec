import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretBox } from '@switchyard/config';

/** A delivery due: its run has ended and its next attempt's time has come. */
export interface DueDelivery {
  run_id: string;
  tenant_id: string;
  url: string;
  attempts: number;
}

/** Webhook deliveries (one a run) and the tenants' signing secrets (sealed at rest). */
@Injectable()
export class WebhooksRepository {
  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(SecretBox) private readonly box: SecretBox,
  ) {}

  /** The run's webhook: POSTed once the run has ended (a later request for the run replaces the URL). */
  async schedule(runId: string, tenantId: string, url: string): Promise<void> {
    await this.ds.query(
      `INSERT INTO webhook_deliveries (run_id, tenant_id, url) VALUES ($1, $2, $3)
       ON CONFLICT (run_id) DO UPDATE SET url = EXCLUDED.url WHERE webhook_deliveries.delivered_at IS NULL`,
      [runId, tenantId, url],
    );
  }

  /** The tenant's signing secret, made on first use. */
  async secret(tenantId: string): Promise<string> {
    const [row] = (await this.ds.query('SELECT webhook_secret FROM tenants WHERE id = $1', [tenantId])) as {
      webhook_secret: string | null;
    }[];
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
    const [updated] = (await this.ds.query(
      `UPDATE tenants SET webhook_secret = $2 WHERE id = $1 ${onlyIfMissing ? 'AND webhook_secret IS NULL' : ''}
       RETURNING webhook_secret`,
      [tenantId, this.box.seal(fresh)],
    )) as [{ webhook_secret: string }[], number];
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
    const [rows] = (await this.ds.query(
      `WITH due AS (
         SELECT d.run_id FROM webhook_deliveries d JOIN runs r ON r.id = d.run_id
         WHERE d.delivered_at IS NULL AND d.gave_up_at IS NULL AND d.next_at <= now()
           AND r.status IN ('succeeded', 'failed', 'cancelled')
         ORDER BY d.next_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED)
       UPDATE webhook_deliveries w SET next_at = now() + $2 * interval '1 millisecond'
       FROM due WHERE w.run_id = due.run_id
       RETURNING w.run_id, w.tenant_id, w.url, w.attempts`,
      [limit, leaseMs],
    )) as [DueDelivery[], number];
    return rows;
  }

  async delivered(runId: string): Promise<void> {
    await this.ds.query(
      'UPDATE webhook_deliveries SET delivered_at = now(), attempts = attempts + 1, last_error = NULL WHERE run_id = $1',
      [runId],
    );
  }

  /** A failed attempt: tried again in `retryInMs`, or (null) given up. */
  async failed(runId: string, error: string, retryInMs: number | null): Promise<void> {
    await this.ds.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = $2,
         next_at = now() + coalesce($3::bigint, 0) * interval '1 millisecond',
         gave_up_at = CASE WHEN $3::bigint IS NULL THEN now() END
       WHERE run_id = $1`,
      [runId, error.slice(0, 1000), retryInMs],
    );
  }
}
