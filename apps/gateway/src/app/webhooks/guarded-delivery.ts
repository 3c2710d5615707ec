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
// A POST times out well within a claim's lease.
const POST_TIMEOUT_MS = 10_000;

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
  /** The POST to make for `d` (null: nothing to send any more, e.g. its run is gone). */
  protected abstract request(
    d: D,
  ): Promise<{ url: string; headers: Record<string, string>; body: string } | null>;
  /** How many attempts `d` has failed before this one. */
  protected abstract attemptsOf(d: D): number;
  /** A 2xx answered: `d` is done (for now). */
  protected abstract delivered(d: D): Promise<void>;
  /** It failed: try again after `retryInMs`, or give up (null). */
  protected abstract failed(d: D, error: string, retryInMs: number | null): Promise<void>;
  /** What names `d` in the log. */
  protected abstract describe(d: D): Record<string, unknown>;

  /**
   * POSTs `d` through the guard: a 2xx delivers it; a non-2xx answer or a network failure is
   * tried again with back-off until the policy's attempts run out.
   */
  private async deliver(d: D): Promise<void> {
    let error: string;
    try {
      const req = await this.request(d);
      if (!req) {
        return;
      }
      const res = await this.fetch(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) {
        await this.delivered(d);
        return;
      }
      error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    const attempt = this.attemptsOf(d) + 1;
    const retryIn = this.retryIn(attempt);
    this.logger.warn({
      msg: retryIn === null ? 'delivery given up' : 'delivery failed; will retry',
      ...this.describe(d),
      attempt,
      error,
      ...(retryIn !== null ? { retry_in_ms: retryIn } : {}),
    });
    await this.failed(d, error, retryIn);
  }

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
  private retryIn(attempt: number): number | null {
    const p = this.policy;
    return attempt >= p.maxAttempts ? null : Math.min(p.retryMaxMs, p.retryBaseMs * 2 ** (attempt - 1));
  }
}
