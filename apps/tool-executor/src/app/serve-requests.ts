import type { Logger } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import { encodeJson } from '@switchyard/jetstream';

/**
 * Answers core NATS requests on `subject` in the tool-executors' queue group (one replica
 * answers each): `answer` turns a request's bytes into the reply, which is sent as JSON. A reply
 * that cannot be sent (the asker timed out) is logged, not thrown.
 */
export function serveRequests(
  nc: NatsConnection,
  subject: string,
  answer: (data: Uint8Array) => Promise<unknown>,
  logger: Logger,
): Subscription {
  const sub = nc.subscribe(subject, { queue: 'tool-executor' });
  void (async () => {
    for await (const msg of sub) {
      void answer(msg.data)
        .then((reply) => msg.respond(encodeJson(reply)))
        .catch((err: Error) => logger.warn(`${subject} answer not sent: ${err.message}`));
    }
  })();
  return sub;
}
