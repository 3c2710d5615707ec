import { Inject, Injectable } from '@nestjs/common';
import { A2A_CONTENT_TYPE, StreamResponse } from '@a2a-js/sdk';
import { GatewayConfig } from '../gateway.config';
import { GuardedDelivery } from '../webhooks/guarded-delivery';
import { A2aRepository, type DuePush } from './a2a.repository';
import { taskEvent, taskOf } from './a2a.views';

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

  protected async request(d: DuePush) {
    const { config } = d;
    const run = await this.repo.taskRunById(config.taskId);
    if (!run) {
      return null;
    }
    const headers: Record<string, string> = { 'Content-Type': A2A_CONTENT_TYPE };
    if (config.authentication) {
      headers['Authorization'] = `${config.authentication.scheme} ${config.authentication.credentials}`;
    } else if (config.token) {
      headers['X-A2A-Notification-Token'] = config.token;
    }
    return {
      url: config.url,
      headers,
      body: JSON.stringify(StreamResponse.toJSON(taskEvent(taskOf(run, 0)))),
    };
  }

  protected attemptsOf(d: DuePush): number {
    return d.attempts;
  }

  protected delivered(d: DuePush): Promise<void> {
    return this.repo.pushed(d.config.taskId, d.config.id, d.state);
  }

  /** Given up, the state counts as told: the next state is tried afresh. */
  protected failed(d: DuePush, error: string, retryInMs: number | null): Promise<void> {
    return this.repo.pushFailed(d.config.taskId, d.config.id, d.state, error, retryInMs);
  }

  protected describe(d: DuePush): Record<string, unknown> {
    return { a2a_push: true, task_id: d.config.taskId, config_id: d.config.id, state: d.state };
  }
}
