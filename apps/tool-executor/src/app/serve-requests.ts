import type { Logger } from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { ZodType } from 'zod';
import { FairQueue, encodeJson } from '@switchyard/jetstream';
import { type TenantWeights, taskFairKey } from '@switchyard/platform';

/**
 * Requests answered at once by one process: beyond this they wait, and the next is chosen fairly
 * across tenants (by weight), interactive before batch within a tenant.
 */
export const REQUEST_SLOTS = 32;

/** A request's JSON, parsed once on arrival (for its queueing key and for its answer). */
export type RequestBody = { ok: true; value: unknown } | { ok: false; message: string };

/** The request as `schema` has it, or why it is not one. */
export function requestOf<T>(body: RequestBody, schema: ZodType<T>): { req: T } | { message: string } {
  if (!body.ok) {
    return body;
  }
  const parsed = schema.safeParse(body.value);
  return parsed.success ? { req: parsed.data } : { message: parsed.error.message };
}

interface Waiting {
  msg: Msg;
  body: RequestBody;
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
  answer: (body: RequestBody) => Promise<unknown>,
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
      void answer(item.body)
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
      const body = parse(msg.data);
      queue.push(
        { msg, body, at: Date.now(), timeoutMs: timeoutOf(body) },
        taskFairKey(body.ok ? body.value : null),
      );
      next();
    }
  })();
  return sub;
}

function parse(data: Uint8Array): RequestBody {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder().decode(data)) as unknown };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** How long the asker waits: a little longer than the call's own budget (a bad request: 10 min). */
function timeoutOf(body: RequestBody): number {
  const timeout = body.ok ? (body.value as { timeout_ms?: unknown } | null)?.timeout_ms : undefined;
  return (typeof timeout === 'number' ? timeout : 595_000) + 5_000;
}
