import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { GatewayConfig } from '../gateway.config';
import { GuardedDelivery } from './guarded-delivery';
import { LangGraphRepository } from '../langgraph/langgraph.repository';
import { LangGraphRuns } from '../langgraph/langgraph-runs.service';
import { runView } from '../langgraph/langgraph.views';
import { type DueDelivery, WebhooksRepository } from './webhooks.repository';

export const WEBHOOK_MAX_ATTEMPTS = 8;

/** `X-Switchyard-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the tenant's secret>`. */
export function webhookSignature(secret: string, body: string, at: number): string {
  return `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
}

/**
 * Sends the webhooks of ended runs: one POST a run (the run as LangGraph's API shows it, with the
 * thread's final values, or its error), signed with the tenant's secret, through the address
 * guard (SWITCHYARD_WEBHOOK_ALLOW_HOSTS allows private hosts by name). A non-2xx answer or a
 * network failure is tried again with back-off; any 2xx ends it. At least once: a gateway that dies
 * mid-POST leaves it to another after the lease, so receivers deduplicate by `run_id`.
 */
@Injectable()
export class WebhookDelivery extends GuardedDelivery<DueDelivery> {
  constructor(
    @Inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @Inject(LangGraphRepository) private readonly runs: LangGraphRepository,
    @Inject(LangGraphRuns) private readonly lgRuns: LangGraphRuns,
    @Inject(GatewayConfig) config: GatewayConfig,
  ) {
    // Tried again with back-off from 1 s, doubling up to 10 min.
    super(config, {
      pollMs: 1000,
      batch: 10,
      leaseMs: 60_000,
      maxAttempts: WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: 1000,
      retryMaxMs: 10 * 60_000,
    });
  }

  protected claim(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return this.repo.claimDue(limit, leaseMs);
  }

  protected async request(d: DueDelivery) {
    const body = JSON.stringify(await this.payload(d.run_id));
    const signature = webhookSignature(
      await this.repo.secret(d.tenant_id),
      body,
      Math.floor(Date.now() / 1000),
    );
    return {
      url: d.url,
      headers: { 'Content-Type': 'application/json', 'X-Switchyard-Signature': signature },
      body,
    };
  }

  protected attemptsOf(d: DueDelivery): number {
    return d.attempts;
  }

  protected delivered(d: DueDelivery): Promise<void> {
    return this.repo.delivered(d.run_id);
  }

  protected failed(d: DueDelivery, error: string, retryInMs: number | null): Promise<void> {
    return this.repo.failed(d.run_id, error, retryInMs);
  }

  protected describe(d: DueDelivery): Record<string, unknown> {
    return { webhook: true, run_id: d.run_id };
  }

  private async payload(runId: string) {
    const run = await this.runs.run(runId);
    if (!run) {
      throw new Error(`run ${runId} is gone`);
    }
    return {
      ...runView(run, run.agent_id, null),
      values: await this.lgRuns.values(run.thread_id),
      ...(run.error ? { error: run.error } : {}),
    };
  }
}
