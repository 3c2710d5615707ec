import type { Logger } from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { FairQueue, encodeJson } from '@switchyard/jetstream';
import { type TenantWeights, taskFairKey } from '@switchyard/platform';

/**
 * Requests answered at once by one process: beyond this they wait, and the next is chosen fairly
 * across tenants (by weight), interactive before batch within a tenant.
 */
export const REQUEST_SLOTS = 32;

interface Waiting {
  msg: Msg;
  at: number;
  /** The asker stops waiting after this many ms: a request still queued then is dropped. */
  timeoutMs: number;
}

/**
 * Answers core NATS requests on `subject` in the tool-executors' queue group (one replica
 * answers each): `answer` turns a request's bytes into the reply, which is sent as JSON. A reply
 * that cannot be sent (the asker timed out) is logged, not thrown. At most REQUEST_SLOTS run at
 * once; the others wait in a FairQueue keyed by the request's `tenant_id` and `priority`, so one
 * tenant's burst of tool calls does not hold back another tenant's.
 */
export function serveRequests(
  nc: NatsConnection,
  subject: string,
  answer: (data: Uint8Array) => Promise<unknown>,
  logger: Logger,
  weights?: TenantWeights,
): Subscription {
  const sub = nc.subscribe(subject, { queue: 'tool-executor' });
  const queue = new FairQueue<Waiting>((tenant) => weights?.weightOf(tenant) ?? 1);
  let running = 0;
  const next = () => {
    while (running < REQUEST_SLOTS) {
      const item = queue.shift();
      if (!item) {
        return;
      }
      if (Date.now() - item.at > item.timeoutMs) {
        logger.warn(`${subject} request dropped: its asker stopped waiting while it was queued`);
        continue;
      }
      running++;
      void answer(item.msg.data)
        .then((reply) => item.msg.respond(encodeJson(reply)))
        .catch((err: Error) => logger.warn(`${subject} answer not sent: ${err.message}`))
        .finally(() => {
          running--;
          next();
        });
    }
  };
  void (async () => {
    for await (const msg of sub) {
      const head = peek(msg.data);
      queue.push({ msg, at: Date.now(), timeoutMs: head.timeoutMs }, taskFairKey(head.data));
      next();
    }
  })();
  return sub;
}

/** The request's payload as far as queueing needs it (a bad one is queued and refused by `answer`). */
function peek(data: Uint8Array): { data: unknown; timeoutMs: number } {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(data)) as { timeout_ms?: unknown } | null;
    const timeout = typeof parsed?.timeout_ms === 'number' ? parsed.timeout_ms : 600_000;
    // The asker waits a little longer than the call's own budget.
    return { data: parsed, timeoutMs: timeout + 5_000 };
  } catch {
    return { data: null, timeoutMs: 600_000 };
  }
}
