import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import type { ConsumerMessages, JsMsg } from 'nats';
import { lastValueFrom } from 'rxjs';
import {
  type ConsumerSpec,
  type JetStreamConnection,
  type StreamSpec,
  decodeJson,
} from './jetstream.connection';
import { JetStreamContext } from './jetstream.context';
import { isRetryable } from './jetstream.exception';
import { type FairKey, FairQueue } from './fair-queue';
import { subjectMatches } from './subject-match';

// A pull waits this long for messages before it is renewed.
const FETCH_EXPIRES_MS = 5000;
// The same under fair dispatch, kept short: a drain hands held messages back only once the
// server has no pull of this process left (NATS 2.9 would redeliver them into a stopped pull,
// to come back only after the ack wait), so it waits out the last pull's expiry.
const FAIR_FETCH_EXPIRES_MS = 1000;
// How often the held messages' counts per tenant are reported (fair dispatch).
const HELD_REPORT_MS = 1000;
// A held message the process had no room for is offered again after this long.
const ADMIT_RECHECK_MS = 10;
// After a drain's deadline aborted the handlers still running, how long they get to unwind (their
// calls cancelled, nothing published) before the owner closes the connections under them.
const ABORT_SETTLE_MS = 2000;

export interface JetStreamConsumerOptions extends ConsumerSpec {
  /** Messages handled at once by this process. */
  concurrency?: number;
  /** Fair dispatch across tenants instead of first in, first out (absent or prefetch 0: FIFO). */
  fair?: FairDispatchOptions;
}

/**
 * Fair dispatch: the consumer pulls up to `prefetch` messages beyond its free handler slots and
 * keeps them in progress (`working()`) in a `FairQueue`; a freed slot takes the item due next
 * across tenants (by weight), interactive before batch within a tenant. A message held here is
 * still the stream's: it is redelivered if this process dies, and handed back at once (nak) when
 * it drains.
 */
export interface FairDispatchOptions {
  /** Messages held beyond the handler slots; 0 turns fair dispatch off. */
  prefetch: number;
  /** The tenant and priority a message's payload works for. */
  keyOf: (data: unknown, subject: string) => FairKey;
  /** A tenant's weight (1 by default). */
  weightOf?: (tenant: string) => number;
  /**
   * Whether another held message may start now, with `running` handlers at work (one always
   * may): a process whose CPU is saturated holds the rest, so they start in fair order as it has
   * room instead of all at once, each slower. Asked again every few milliseconds while it says no.
   */
  admit?: (running: number) => boolean;
  /** A held message starts: how long it waited since it was published (ms). */
  onStart?: (key: FairKey, data: unknown, waitedMs: number) => void;
  /** A started message's handler ended (however it ended). */
  onEnd?: (key: FairKey, data: unknown) => void;
  /** After every change of what is held: the count per tenant (for gauges). */
  onHeld?: (byTenant: Map<string, number>) => void;
}

/** A handler at work: its message, and what aborts it when the message is handed back. */
interface Running {
  msg: JsMsg;
  abort: AbortController;
}

/** A message pulled and decoded, waiting for a handler slot. */
interface Held {
  msg: JsMsg;
  data: unknown;
  key: FairKey;
}

export interface JetStreamServerOptions {
  /** The process's connection (owned and drained by whoever created it). */
  connection: JetStreamConnection;
  streams: readonly StreamSpec[];
  consumers: readonly JetStreamConsumerOptions[];
  /** Called once connected and set up, e.g. to start KV registration on the same connection. */
  onReady?: (conn: JetStreamConnection) => Promise<void> | void;
  /** Upper bound of the nak back-off. */
  maxBackoffMs?: number;
  /**
   * On close: how long in-flight handlers may take to finish (they keep their messages with
   * in-progress acks meanwhile); what is still running then is handed back at once (nak) for
   * another replica, instead of waiting out the ack wait, and its handler aborted (the context's
   * `signal`): nothing it does afterwards is acked or published. Default 45 s.
   */
  drainTimeoutMs?: number;
  /**
   * Told when the drain ends: handlers finished and handed back (still running at the drain
   * timeout), and held messages released (pulled for fair dispatch, never started here).
   */
  onDrained?: (report: { finished: number; handedBack: number; released: number }) => void;
}

/**
 * NestJS transport over JetStream durable pull consumers. Handlers are bound with
 * `@EventPattern('<subject or wildcard>')`. While a handler works the message gets in-progress
 * acks; it is acked only after the handler resolved (a node handler resolves after its delta was
 * published and acknowledged); a retryable error naks it with exponential back-off, a
 * non-retryable one terminates it. `close()` stops pulling, lets in-flight handlers finish and
 * leaves draining the connection to its owner.
 */
export class JetStreamServer extends Server implements CustomTransportStrategy {
  private conn?: JetStreamConnection;
  private readonly batches = new Set<ConsumerMessages>();
  /** Handlers running, with the message each works on. */
  private readonly inFlight = new Map<Promise<void>, Running>();
  /** Messages pulled but not started (fair dispatch), per consumer, with its last pull's time. */
  private readonly held = new Set<{ queue: FairQueue<Held>; keepalive: NodeJS.Timeout; pulledAt: number }>();
  private closing = false;

  constructor(private readonly options: JetStreamServerOptions) {
    super();
  }

  get connection(): JetStreamConnection {
    if (!this.conn) {
      throw new Error('JetStream transport is not connected yet');
    }
    return this.conn;
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      this.conn = this.options.connection;
      for (const stream of this.options.streams) {
        await this.conn.ensureStream(stream);
      }
      for (const consumer of this.options.consumers) {
        await this.conn.ensureConsumer(consumer);
      }
      await this.options.onReady?.(this.conn);
      for (const consumer of this.options.consumers) {
        void this.consumeForever(consumer);
      }
      callback();
    } catch (err) {
      callback(err);
    }
  }

  /**
   * Drains: stops pulling, lets in-flight handlers finish (publish, ack) within the drain timeout,
   * hands what is left back to the stream (nak without delay: another replica takes it at once)
   * and aborts those handlers (giving them a moment to unwind), then flushes the acks. It returns
   * in bounded time whatever a handler does: the process can exit before its grace period ends.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const batch of this.batches) {
      batch.stop();
    }
    const running = this.inFlight.size;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => {
      timer = setTimeout(resolve, this.options.drainTimeoutMs ?? 45_000);
      timer.unref();
    });
    const handBack = this.handBackHeld(deadline);
    await Promise.race([Promise.allSettled([...this.inFlight.keys()]), deadline]);
    const notStarted = await handBack;
    clearTimeout(timer);
    const left = [...this.inFlight];
    for (const [, { msg, abort }] of left) {
      msg.nak();
      abort.abort(new Error('handed back: the drain deadline passed'));
    }
    if (left.length) {
      // The aborted handlers stop their calls before the owner closes the connections under them.
      await Promise.race([
        Promise.allSettled(left.map(([work]) => work)),
        new Promise((r) => setTimeout(r, ABORT_SETTLE_MS).unref()),
      ]);
    }
    this.options.onDrained?.({
      finished: running - left.length,
      handedBack: left.length,
      released: notStarted,
    });
    // The handlers' acks are plain publishes: a round trip to the server sees them delivered.
    if (this.conn && !this.conn.nc.isClosed()) {
      await this.conn.nc.flush().catch(() => undefined);
    }
  }

  /**
   * Held messages were never started here: handed back (nak) for another replica once the last
   * pull of this process has expired on the server (kept in progress until then).
   */
  private async handBackHeld(deadline: Promise<unknown>): Promise<number> {
    let count = 0;
    for (const held of [...this.held]) {
      const wait = held.pulledAt + FAIR_FETCH_EXPIRES_MS + 100 - Date.now();
      if (held.queue.size && wait > 0) {
        await Promise.race([new Promise((r) => setTimeout(r, wait)), deadline]);
      }
      clearInterval(held.keepalive);
      for (const h of held.queue.takeAll()) {
        h.msg.nak();
        count++;
      }
      this.held.delete(held);
    }
    return count;
  }

  on(): never {
    throw new Error('JetStreamServer does not emit transport events');
  }

  unwrap<T>(): T {
    return this.connection.nc as T;
  }

  private async consumeForever(spec: JetStreamConsumerOptions): Promise<void> {
    if (spec.fair && spec.fair.prefetch > 0) {
      return this.consumeFairly(spec, spec.fair);
    }
    const concurrency = spec.concurrency ?? 16;
    // This consumer's own handlers: the orchestrator runs two consumers in one process.
    const mine = new Set<Promise<void>>();
    await this.pullForever(
      spec,
      FETCH_EXPIRES_MS,
      async () => {
        while (mine.size >= concurrency) {
          await Promise.race(mine);
        }
        // Pull only for free slots: a message is never held in a buffer without in-progress
        // acks (it would be redelivered and run twice), and idle replicas get the rest.
        return concurrency - mine.size;
      },
      (msg) => {
        const abort = new AbortController();
        const work = this.handle(msg, spec, abort.signal).finally(() => {
          mine.delete(work);
          this.inFlight.delete(work);
        });
        mine.add(work);
        this.inFlight.set(work, { msg, abort });
      },
    );
  }

  /**
   * Pulls from the consumer until the server closes, attaching again after a failure (the
   * consumer may have been lost with a server restart: it is made again). `room` waits until
   * there is room and answers how many messages to ask for; `take` receives each one. A message
   * pulled after the drain began is handed back at once.
   */
  private async pullForever(
    spec: JetStreamConsumerOptions,
    expires: number,
    room: () => Promise<number>,
    take: (msg: JsMsg) => void,
  ): Promise<void> {
    while (!this.closing) {
      try {
        const consumer = await this.connection.js.consumers.get(spec.stream, spec.durable);
        while (!this.closing) {
          const max = await room();
          const batch = await consumer.fetch({ max_messages: max, expires });
          this.batches.add(batch);
          try {
            for await (const msg of batch) {
              if (this.closing) {
                msg.nak();
                continue;
              }
              take(msg);
            }
          } finally {
            this.batches.delete(batch);
          }
        }
      } catch (err) {
        if (this.closing) {
          return;
        }
        this.logger.error(`consumer ${spec.durable} stopped: ${(err as Error).message}; re-attaching`);
        await new Promise((r) => setTimeout(r, 1000));
        await this.connection.ensureConsumer(spec).catch(() => undefined);
      }
    }
  }

  /**
   * Fair dispatch (see FairDispatchOptions): pulls for free slots plus `prefetch`, holds what it
   * cannot start yet in a FairQueue (in progress, so it is not redelivered meanwhile), and starts
   * the item due next whenever a slot is free and `admit` lets it.
   */
  private async consumeFairly(spec: JetStreamConsumerOptions, fair: FairDispatchOptions): Promise<void> {
    const concurrency = spec.concurrency ?? 16;
    const queue = new FairQueue<Held>(fair.weightOf);
    const mine = new Set<Promise<void>>();
    const ackWait = spec.ackWaitMs ?? 30_000;
    // One timer keeps every held message ours (rather than a timer per message), until the
    // messages start or a drain hands them back.
    const keepalive = setInterval(
      () => queue.forEach((h) => h.msg.working()),
      Math.max(100, Math.floor(ackWait / 3)),
    );
    keepalive.unref();
    const held = { queue, keepalive, pulledAt: 0 };
    this.held.add(held);
    // The held counts are a gauge: reported at most once a second, not at every start and end.
    let reportTimer: NodeJS.Timeout | undefined;
    const report = () => {
      if (fair.onHeld && !reportTimer) {
        reportTimer = setTimeout(() => {
          reportTimer = undefined;
          fair.onHeld?.(queue.waitingByTenant());
        }, HELD_REPORT_MS);
        reportTimer.unref();
      }
    };
    let recheck: NodeJS.Timeout | undefined;
    const dispatch = () => {
      while (!this.closing && mine.size < concurrency && queue.size > 0) {
        if (mine.size > 0 && fair.admit && !fair.admit(mine.size)) {
          recheck ??= setTimeout(() => {
            recheck = undefined;
            dispatch();
          }, ADMIT_RECHECK_MS);
          break;
        }
        const next = queue.shift();
        if (!next) {
          break;
        }
        const { msg, data, key } = next;
        fair.onStart?.(key, data, Math.max(0, Date.now() - msg.info.timestampNanos / 1e6));
        const handler = this.findHandler(msg.subject);
        const abort = new AbortController();
        const work = (
          handler ? this.work(msg, spec, handler, data, abort.signal) : this.noHandler(msg)
        ).finally(() => {
          fair.onEnd?.(key, data);
          mine.delete(work);
          this.inFlight.delete(work);
          dispatch();
        });
        mine.add(work);
        this.inFlight.set(work, { msg, abort });
      }
      report();
    };
    try {
      await this.pullForever(
        spec,
        FAIR_FETCH_EXPIRES_MS,
        async () => {
          while (mine.size + queue.size >= concurrency + fair.prefetch) {
            await Promise.race(mine);
          }
          held.pulledAt = Date.now();
          return concurrency + fair.prefetch - mine.size - queue.size;
        },
        (msg) => {
          const data = this.decode(msg);
          if (data !== undefined) {
            const key = fair.keyOf(data, msg.subject);
            queue.push({ msg, data, key }, key);
            dispatch();
          }
        },
      );
    } finally {
      clearTimeout(recheck);
      if (!this.closing) {
        clearInterval(keepalive);
        this.held.delete(held);
      }
    }
  }

  private async handle(msg: JsMsg, spec: JetStreamConsumerOptions, signal: AbortSignal): Promise<void> {
    const handler = this.findHandler(msg.subject);
    if (!handler) {
      return this.noHandler(msg);
    }
    const data = this.decode(msg);
    if (data === undefined) {
      return;
    }
    // No span here: the handlers open theirs in the trace the payload carries (`trace`).
    return this.work(msg, spec, handler, data, signal);
  }

  private async noHandler(msg: JsMsg): Promise<void> {
    this.logger.error(`no handler for subject ${msg.subject}; terminating the message`);
    msg.term();
  }

  /** The message's JSON payload; undefined (and the message terminated) when it is not JSON. */
  private decode(msg: JsMsg): unknown {
    try {
      return decodeJson(msg.data) ?? null;
    } catch {
      this.logger.error(`message on ${msg.subject} is not JSON; terminating it`);
      msg.term();
      return undefined;
    }
  }

  private async work(
    msg: JsMsg,
    spec: JetStreamConsumerOptions,
    handler: MessageHandler,
    data: unknown,
    signal: AbortSignal,
  ): Promise<void> {
    // Keep the message ours while the handler works (LLM calls are slow).
    const ackWait = spec.ackWaitMs ?? 30_000;
    const heartbeat = setInterval(() => msg.working(), Math.max(100, Math.floor(ackWait / 3)));
    // Handed back: the message is no longer this process's to keep.
    signal.addEventListener('abort', () => clearInterval(heartbeat), { once: true });
    try {
      const result = await handler(data, new JetStreamContext([msg, signal]));
      await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
      clearInterval(heartbeat);
      if (signal.aborted) {
        return; // handed back by the drain: another delivery does the work
      }
      // A plain ack (one publish), not ackAck()'s request: a lost ack only brings a redelivery,
      // which the handlers are built for (a task's delta is deduplicated by Nats-Msg-Id, a
      // delta already applied is acknowledged and ignored), and ackAck's confirmation bought
      // nothing more here. Its reply inbox, timer and error object were ~3% of a service's CPU.
      msg.ack();
    } catch (err) {
      clearInterval(heartbeat);
      if (signal.aborted) {
        return;
      }
      if (!isRetryable(err)) {
        this.logger.error(`terminating message on ${msg.subject}: ${(err as Error).message}`);
        msg.term();
        return;
      }
      const attempt = msg.info.redeliveryCount;
      const delay = Math.min(this.options.maxBackoffMs ?? 30_000, 250 * 2 ** Math.min(attempt, 10));
      this.logger.warn(
        `retrying message on ${msg.subject} in ${delay} ms (delivery ${attempt}): ${(err as Error).message}`,
      );
      msg.nak(delay);
    }
  }

  private findHandler(subject: string) {
    const exact = this.messageHandlers.get(subject);
    if (exact) {
      return exact;
    }
    for (const [pattern, handler] of this.messageHandlers) {
      if (subjectMatches(pattern, subject)) {
        return handler;
      }
    }
    return undefined;
  }
}
