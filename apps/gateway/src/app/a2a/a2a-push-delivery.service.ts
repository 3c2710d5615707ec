import { Inject, Injectable } from '@nestjs/common';
import { A2A_CONTENT_TYPE, StreamResponse } from '@a2a-js/sdk';
import { GatewayConfig } from '../gateway.config';
import { GuardedDelivery } from '../webhooks/guarded-delivery';
import { A2aRepository, type DuePush } from './a2a.repository';
import { taskEvent, taskOf } from './a2a.views';

const TIMEOUT_MS = 10_000;

/**
 * Sends A2A push notifications: whenever a task's state (its run's status, or a new question)
 * differs from what a config was last told, the task is POSTed to the config's URL as A2A 1.0's
 * `StreamResponse` — with `Authorization: <scheme> <credentials>` when the config has
 * authentication, else its token as `X-A2A-Notification-Token` — through the address guard.
 * Failures are tried again with back-off. At least once per state seen (a state passed between
 * two polls is not told), so receivers deduplicate by task and state.
 */
@Injectable()
export class A2aPushDelivery extends GuardedDelivery<DuePush> {
  constructor(
    @Inject(A2aRepository) private readonly repo: A2aRepository,
    @Inject(GatewayConfig) config: GatewayConfig,
  ) {
    // Six attempts at a state, the waits doubling from 1 s up to 5 min.
    super(config, {
      pollMs: 500,
      batch: 20,
      leaseMs: 60_000,
      maxAttempts: 6,
      retryBaseMs: 1000,
      retryMaxMs: 5 * 60_000,
    });
  }

  protected claim(limit: number, leaseMs: number): Promise<DuePush[]> {
    return this.repo.claimDue(limit, leaseMs);
  }

  protected async deliver(d: DuePush): Promise<void> {
    const { config } = d;
    let error: string;
    try {
      const run = await this.repo.taskRunById(config.taskId);
      if (!run) {
        return;
      }
      const headers: Record<string, string> = { 'Content-Type': A2A_CONTENT_TYPE };
      if (config.authentication) {
        headers['Authorization'] = `${config.authentication.scheme} ${config.authentication.credentials}`;
      } else if (config.token) {
        headers['X-A2A-Notification-Token'] = config.token;
      }
      const res = await this.fetch(config.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(StreamResponse.toJSON(taskEvent(taskOf(run, 0)))),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) {
        await this.repo.pushed(config.taskId, config.id, d.state);
        return;
      }
      error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    const attempt = d.attempts + 1;
    const retryIn = this.retryIn(attempt);
    this.logger.warn({
      msg:
        retryIn === null
          ? 'A2A push notification given up for this state'
          : 'A2A push notification failed; will retry',
      task_id: config.taskId,
      config_id: config.id,
      state: d.state,
      attempt,
      error,
    });
    await this.repo.pushFailed(config.taskId, config.id, d.state, error, retryIn);
  }
}
