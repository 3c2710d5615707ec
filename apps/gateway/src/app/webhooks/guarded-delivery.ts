import { PeriodicJob } from '@switchyard/platform';
import { type GuardedFetch, guardedFetch } from '@switchyard/net-guard';
import type { GatewayConfig } from '../gateway.config';

/** How a delivery job polls, leases and retries. */
export interface DeliveryPolicy {
  pollMs: number;
  batch: number;
  /** A claimed delivery is the claimant's this long (a POST times out well within it). */
  leaseMs: number;
  /** Attempts before giving up; the waits between them double from `retryBaseMs` up to `retryMaxMs`. */
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

/**
 * A job that POSTs what is due to URLs clients gave (webhooks, A2A push notifications): each pass
 * claims a batch (shared between replicas by the claim's lease) and delivers it through the
 * address guard — SWITCHYARD_WEBHOOK_ALLOW_HOSTS lets it reach private hosts by name.
 */
export abstract class GuardedDelivery<D> extends PeriodicJob {
  protected readonly fetch: GuardedFetch;

  protected constructor(
    config: GatewayConfig,
    protected readonly policy: DeliveryPolicy,
  ) {
    super();
    this.fetch = guardedFetch({
      allowHosts: config.webhookAllowHosts,
      allowVariable: 'SWITCHYARD_WEBHOOK_ALLOW_HOSTS',
    });
  }

  protected abstract claim(limit: number, leaseMs: number): Promise<D[]>;
  protected abstract deliver(d: D): Promise<void>;

  protected intervalMs(): number {
    return this.policy.pollMs;
  }

  /**
   * One pass over what is due, delivered side by side: one receiver that does not answer holds up
   * only its own delivery, never the batch past its lease (when another replica would take it).
   */
  protected async pass(): Promise<void> {
    const due = await this.claim(this.policy.batch, this.policy.leaseMs);
    const done = await Promise.allSettled(due.map((d) => this.deliver(d)));
    for (const r of done) {
      if (r.status === 'rejected') {
        this.logger.warn(`a delivery could not be recorded: ${(r.reason as Error).message}`);
      }
    }
  }

  /** The wait before the next attempt after `attempt` failed ones; null: give up. */
  protected retryIn(attempt: number): number | null {
    const p = this.policy;
    return attempt >= p.maxAttempts ? null : Math.min(p.retryMaxMs, p.retryBaseMs * 2 ** (attempt - 1));
  }
}
