import 'reflect-metadata';
import { Controller, type INestMicroservice, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { headers as natsHeaders } from 'nats';
import { NatsServerProcess, sleep, within } from '@switchyard/testing';
import { JetStreamClient } from './jetstream.client';
import { JetStreamConnection } from './jetstream.connection';
import { JetStreamExceptionFilter } from './jetstream-exception.filter';
import { JetStreamContext } from './jetstream.context';
import { NonRetryableMessageError } from './jetstream.exception';
import { JetStreamServer } from './jetstream.server';

// Integration tests of the Nest transport against a real nats-server (JetStream) started by this
// file on a spare port, with real Nest microservices whose controllers record, throw or wait.

jest.setTimeout(20_000);

async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 8000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(25);
  }
}

/** One handler invocation as the controller saw it, and what the transport then did with the message. */
interface Call {
  data: unknown;
  subject: string;
  delivery: number;
  ctx: unknown;
  msgIdHeader?: string;
  traceHeader?: string;
  startedAt: number;
  endedAt?: number;
  acks: number;
  naks: (number | undefined)[];
  terms: number;
  working: number;
}

type Behaviour = (call: Call, callNumber: number) => Promise<void> | void;

interface Recorder {
  calls: Call[];
  running: number;
  maxRunning: number;
}

/** A controller with one `@EventPattern(pattern)` handler that records its calls and then behaves. */
function recordingController(pattern: string, recorder: Recorder, behaviour: Behaviour): Type {
  @Controller()
  class RecordingController {
    @EventPattern(pattern)
    async handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
      const msg = ctx.getMessage();
      const call: Call = {
        data,
        subject: ctx.getSubject(),
        delivery: ctx.getDeliveryCount(),
        ctx,
        msgIdHeader: ctx.getHeader('Nats-Msg-Id'),
        traceHeader: ctx.getHeader('x-trace'),
        startedAt: Date.now(),
        acks: 0,
        naks: [],
        terms: 0,
        working: 0,
      };
      // Observe what the transport does with this very message.
      const ack = msg.ack.bind(msg);
      msg.ack = () => {
        call.acks += 1;
        ack();
      };
      const nak = msg.nak.bind(msg);
      msg.nak = (millis) => {
        call.naks.push(millis);
        nak(millis);
      };
      const term = msg.term.bind(msg);
      msg.term = (reason) => {
        call.terms += 1;
        term(reason);
      };
      const working = msg.working.bind(msg);
      msg.working = () => {
        call.working += 1;
        working();
      };
      recorder.calls.push(call);
      recorder.running += 1;
      recorder.maxRunning = Math.max(recorder.maxRunning, recorder.running);
      try {
        await behaviour(call, recorder.calls.length);
      } finally {
        recorder.running -= 1;
        call.endedAt = Date.now();
      }
    }
  }
  return RecordingController;
}

interface ServiceOptions {
  label: string;
  behaviour?: Behaviour;
  /** `@EventPattern` of the handler; default `<prefix>.ok`. */
  pattern?: (prefix: string) => string;
  /** Stream subjects and consumer filter; default `<prefix>.>`. */
  subject?: (prefix: string) => string;
  ackWaitMs?: number;
  concurrency?: number;
  maxBackoffMs?: number;
  /** Fair dispatch (keyed by the payload's `tenant` and `priority`). */
  fair?: { prefetch: number; weightOf?: (tenant: string) => number; admit?: (running: number) => boolean };
  /** Messages to publish before the service starts. */
  before?: (svc: { stream: string; prefix: string }) => Promise<void>;
}

interface Service {
  app: INestMicroservice;
  server: JetStreamServer;
  conn: JetStreamConnection;
  stream: string;
  prefix: string;
  durable: string;
  recorder: Recorder;
}

describe('JetStreamServer (real nats-server, real Nest microservice)', () => {
  let nats: NatsServerProcess | undefined;
  let publisher: JetStreamConnection;
  const apps: INestMicroservice[] = [];
  const conns: { close(): Promise<void> }[] = [];
  let seq = 0;

  async function connection(name: string): Promise<JetStreamConnection> {
    const conn = await JetStreamConnection.connect({ servers: nats!.url, name });
    conns.push(conn);
    return conn;
  }

  async function startService(opts: ServiceOptions): Promise<Service> {
    seq += 1;
    const prefix = `ts${seq}.${opts.label}`;
    const stream = `SRV_${opts.label.toUpperCase()}_${seq}`;
    const subject = opts.subject?.(prefix) ?? `${prefix}.>`;
    const streamSpec = { name: stream, subjects: [subject] };
    if (opts.before) {
      await publisher.ensureStream(streamSpec);
      await opts.before({ stream, prefix });
    }
    const recorder: Recorder = { calls: [], running: 0, maxRunning: 0 };
    const controller = recordingController(
      opts.pattern?.(prefix) ?? `${prefix}.ok`,
      recorder,
      opts.behaviour ?? (() => undefined),
    );
    @Module({ controllers: [controller] })
    class TestModule {}

    const conn = await connection(`svc-${opts.label}`);
    const durable = `svc_${opts.label}`;
    const server = new JetStreamServer({
      connection: conn,
      streams: [streamSpec],
      consumers: [
        {
          stream,
          durable,
          filter: subject,
          ackWaitMs: opts.ackWaitMs,
          concurrency: opts.concurrency,
          ...(opts.fair
            ? {
                fair: {
                  ...opts.fair,
                  keyOf: (data: unknown) => {
                    const d = data as { tenant?: string; priority?: 'batch' };
                    return { tenant: d.tenant ?? '', priority: d.priority ?? 'interactive' };
                  },
                },
              }
            : {}),
        },
      ],
      maxBackoffMs: opts.maxBackoffMs,
    });
    const app = await NestFactory.createMicroservice(TestModule, { strategy: server, logger: false });
    apps.push(app);
    // As every service does (libs/platform bootstrap): errors reach the transport unchanged.
    app.useGlobalFilters(new JetStreamExceptionFilter());
    await app.listen();
    return { app, server, conn, stream, prefix, durable, recorder };
  }

  async function streamMessages(stream: string): Promise<number> {
    return (await publisher.jsm.streams.info(stream)).state.messages;
  }

  async function consumerInfo(svc: Service) {
    return publisher.jsm.consumers.info(svc.stream, svc.durable);
  }

  let msgSeq = 0;
  function publish(subject: string, payload: unknown, headers?: Record<string, string>) {
    msgSeq += 1;
    return publisher.publishUnchecked(subject, payload, { msgId: `m-${msgSeq}`, headers });
  }

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    publisher = await connection('publisher');
  });

  afterEach(async () => {
    for (const app of apps.splice(0)) {
      await within(
        app.close().catch(() => undefined),
        12_000,
      );
    }
  });

  afterAll(async () => {
    for (const app of apps.splice(0)) {
      await within(
        app.close().catch(() => undefined),
        5000,
      );
    }
    for (const c of conns.splice(0)) {
      await within(
        c.close().catch(() => undefined),
        3000,
      );
    }
    await nats?.stop();
  });

  it('acks a handled message exactly once, after giving the handler the JSON payload and the context', async () => {
    const svc = await startService({ label: 'ok' });

    const ack = await publish(`${svc.prefix}.ok`, { run_id: 'r-1', n: [1, 2] }, { 'x-trace': 't-1' });

    await waitFor('the handler', () => svc.recorder.calls.length === 1);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    await sleep(300);
    const [call] = svc.recorder.calls;
    expect(svc.recorder.calls).toHaveLength(1);
    expect(call.data).toEqual({ run_id: 'r-1', n: [1, 2] });
    expect(call.ctx).toBeInstanceOf(JetStreamContext);
    expect(call.subject).toBe(`${svc.prefix}.ok`);
    expect(call.delivery).toBe(1);
    expect(call.msgIdHeader).toBe(`m-${msgSeq}`);
    expect(call.traceHeader).toBe('t-1');
    expect((call.ctx as JetStreamContext).getMessage().seq).toBe(ack.seq);
    expect(call.acks).toBe(1);
    expect(call.naks).toEqual([]);
    expect(call.terms).toBe(0);
    const info = await consumerInfo(svc);
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
    expect(info.num_redelivered).toBe(0);
    expect(info.delivered.stream_seq).toBe(ack.seq);
  });

  it('acks only after the handler resolved', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const svc = await startService({ label: 'late', behaviour: () => gate });

    await publish(`${svc.prefix}.ok`, { x: 1 });
    await waitFor('the handler', () => svc.recorder.calls.length === 1);
    await sleep(300);
    expect(svc.recorder.calls[0].acks).toBe(0);
    expect(await streamMessages(svc.stream)).toBe(1);
    expect((await consumerInfo(svc)).num_ack_pending).toBe(1);

    release();
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    expect(svc.recorder.calls[0].acks).toBe(1);
  });

  it('redelivers after a retryable error with a growing back-off, then acks', async () => {
    const svc = await startService({
      label: 'retry',
      behaviour: (_call, n) => {
        if (n <= 2) {
          throw new Error(`transient failure ${n}`);
        }
      },
    });

    await publish(`${svc.prefix}.ok`, { attempt: 'me' });

    await waitFor('three deliveries', () => svc.recorder.calls.length === 3);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    await sleep(300);
    const calls = svc.recorder.calls;
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.delivery)).toEqual([1, 2, 3]);
    expect(calls.map((c) => c.data)).toEqual([{ attempt: 'me' }, { attempt: 'me' }, { attempt: 'me' }]);
    expect(calls[0].naks).toHaveLength(1);
    expect(calls[1].naks).toHaveLength(1);
    expect(calls[1].naks[0]!).toBeGreaterThan(calls[0].naks[0]!);
    expect(calls.map((c) => c.acks)).toEqual([0, 0, 1]);
    const firstGap = calls[1].startedAt - calls[0].startedAt;
    const secondGap = calls[2].startedAt - calls[1].startedAt;
    expect(firstGap).toBeGreaterThanOrEqual(calls[0].naks[0]! - 50);
    expect(secondGap).toBeGreaterThanOrEqual(calls[1].naks[0]! - 50);
    expect(secondGap).toBeGreaterThan(firstGap);
    expect((await consumerInfo(svc)).num_ack_pending).toBe(0);
  });

  it('caps the back-off at maxBackoffMs', async () => {
    const svc = await startService({
      label: 'cap',
      maxBackoffMs: 100,
      behaviour: (_call, n) => {
        if (n <= 2) {
          throw new Error('transient');
        }
      },
    });

    await publish(`${svc.prefix}.ok`, {});

    await waitFor('three deliveries', () => svc.recorder.calls.length === 3, 3000);
    expect(svc.recorder.calls[0].naks).toEqual([100]);
    expect(svc.recorder.calls[1].naks).toEqual([100]);
    expect(svc.recorder.calls[2].startedAt - svc.recorder.calls[0].startedAt).toBeLessThan(1500);
  });

  it.each([
    ['NonRetryableMessageError', () => new NonRetryableMessageError('bad message')],
    ['an error with retryable === false', () => Object.assign(new Error('bad'), { retryable: false })],
  ])('terminates the message when the handler throws %s', async (_name, make) => {
    const svc = await startService({
      label: 'term',
      behaviour: () => {
        throw make();
      },
    });

    await publish(`${svc.prefix}.ok`, { bad: true });

    await waitFor('the handler', () => svc.recorder.calls.length >= 1);
    await sleep(1600); // longer than the first two back-off delays (500 ms, 1000 ms)
    expect(svc.recorder.calls).toHaveLength(1);
    expect(svc.recorder.calls[0].terms).toBe(1);
    expect(svc.recorder.calls[0].naks).toEqual([]);
    expect(svc.recorder.calls[0].acks).toBe(0);
    expect(await streamMessages(svc.stream)).toBe(0);
    expect((await consumerInfo(svc)).num_ack_pending).toBe(0);
  });

  it('terminates a non-JSON message and a message no handler is bound to, without redelivery', async () => {
    const svc = await startService({ label: 'junk' });

    const h = natsHeaders();
    h.set('Nats-Msg-Id', 'junk-1');
    const notJson = await publisher.js.publish(`${svc.prefix}.ok`, new TextEncoder().encode('{not json'), {
      headers: h,
    });
    const unhandled = await publish(`${svc.prefix}.nobody`, { fine: 'json' });
    expect(unhandled.seq).toBe(notJson.seq + 1);

    await waitFor(
      'both to be delivered',
      async () => (await consumerInfo(svc)).delivered.stream_seq === unhandled.seq,
    );
    await sleep(1200); // longer than the first back-off delay
    expect(svc.recorder.calls).toHaveLength(0);
    const info = await consumerInfo(svc);
    expect(info.delivered.consumer_seq).toBe(2); // one delivery each, none again
    expect(info.num_redelivered).toBe(0);
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
    expect(await streamMessages(svc.stream)).toBe(0);
  });

  it('keeps a message in progress while a slow handler works past the ack wait', async () => {
    const svc = await startService({
      label: 'slow',
      ackWaitMs: 1500,
      behaviour: () => sleep(5000),
    });

    await publish(`${svc.prefix}.ok`, { slow: true });

    await waitFor('the handler', () => svc.recorder.calls.length === 1);
    await waitFor('the handler to finish', () => svc.recorder.calls[0].endedAt !== undefined, 8000);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    await sleep(300);
    expect(svc.recorder.calls).toHaveLength(1);
    expect(svc.recorder.calls[0].working).toBeGreaterThanOrEqual(3);
    expect(svc.recorder.calls[0].acks).toBe(1);
    const info = await consumerInfo(svc);
    expect(info.num_redelivered).toBe(0);
    expect(info.delivered.consumer_seq).toBe(1);
  });

  it('runs at most `concurrency` handlers at once', async () => {
    const svc = await startService({
      label: 'conc',
      concurrency: 2,
      behaviour: () => sleep(300),
      before: async ({ prefix }) => {
        for (let i = 0; i < 6; i++) {
          await publish(`${prefix}.ok`, { i });
        }
      },
    });

    await waitFor('six calls', () => svc.recorder.calls.length === 6);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    expect(svc.recorder.maxRunning).toBe(2);
    expect(svc.recorder.calls.map((c) => (c.data as { i: number }).i).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(svc.recorder.calls.every((c) => c.delivery === 1 && c.acks === 1)).toBe(true);
  });

  it('does not let a message fetched while every slot is busy be redelivered (concurrency 2, slow handlers)', async () => {
    const svc = await startService({
      label: 'prefetch',
      concurrency: 2,
      ackWaitMs: 1500,
      behaviour: () => sleep(2000),
      before: async ({ prefix }) => {
        for (let i = 0; i < 3; i++) {
          await publish(`${prefix}.ok`, { i });
        }
      },
    });

    await waitFor('three calls', () => svc.recorder.calls.length >= 3, 10_000);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0, 10_000);
    await sleep(500);
    const seen = svc.recorder.calls.map((c) => [(c.data as { i: number }).i, c.delivery]);
    expect(seen.sort()).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    expect((await consumerInfo(svc)).num_redelivered).toBe(0);
  });

  describe('fair dispatch', () => {
    // Tenant A's backlog of 60 messages is in the stream before the service starts, then tenant
    // B's single message: with one handler slot, FIFO starts B's last.
    const backlog = async ({ prefix }: { prefix: string }) => {
      for (let i = 0; i < 60; i++) {
        await publish(`${prefix}.ok`, { tenant: 'A', i });
      }
      await publish(`${prefix}.ok`, { tenant: 'B', i: 0 });
    };
    const order = (svc: Service) => svc.recorder.calls.map((c) => (c.data as { tenant: string }).tenant);
    const slow = () => sleep(15);

    it("starts another tenant's message ahead of a tenant's backlog, and every message once", async () => {
      const svc = await startService({
        label: 'fair',
        concurrency: 1,
        fair: { prefetch: 100 },
        behaviour: slow,
        before: backlog,
      });
      await waitFor('all 61 handled', () => svc.recorder.calls.length === 61, 15_000);
      await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
      // The first pull may start A's first message before B's has arrived; B goes next at the latest.
      expect(order(svc).indexOf('B')).toBeLessThanOrEqual(2);
      expect(svc.recorder.calls.map((c) => c.delivery)).toEqual(Array(61).fill(1));
      expect(svc.recorder.maxRunning).toBe(1);
    });

    it('is first in, first out with prefetch 0 (fair dispatch off)', async () => {
      const svc = await startService({
        label: 'fifo',
        concurrency: 1,
        fair: { prefetch: 0 },
        behaviour: slow,
        before: backlog,
      });
      await waitFor('all 61 handled', () => svc.recorder.calls.length === 61, 15_000);
      expect(order(svc).indexOf('B')).toBe(60);
    });

    it('shares the slots by weight between two busy tenants', async () => {
      const svc = await startService({
        label: 'weights',
        concurrency: 1,
        fair: { prefetch: 200, weightOf: (t) => (t === 'A' ? 3 : 1) },
        behaviour: () => sleep(2),
        before: async ({ prefix }) => {
          for (let i = 0; i < 80; i++) {
            await publish(`${prefix}.ok`, { tenant: 'C', i });
            await publish(`${prefix}.ok`, { tenant: 'A', i });
          }
        },
      });
      await waitFor('all 160 handled', () => svc.recorder.calls.length === 160, 15_000);
      // While both had messages waiting (the first 80 starts), A had 3 of every 4.
      const first = order(svc).slice(4, 84);
      expect(first.filter((t) => t === 'A').length).toBeGreaterThanOrEqual(56);
      expect(first.filter((t) => t === 'A').length).toBeLessThanOrEqual(64);
    });

    it('starts no more than `admit` allows (one always), then more once it allows them', async () => {
      let room = false;
      const asked: number[] = [];
      const svc = await startService({
        label: 'admit',
        concurrency: 4,
        fair: {
          prefetch: 20,
          admit: (running) => {
            asked.push(running);
            return room;
          },
        },
        behaviour: () => sleep(30),
        before: async ({ prefix }) => {
          for (let i = 0; i < 12; i++) {
            await publish(`${prefix}.ok`, { tenant: 'A', i });
          }
        },
      });
      await waitFor('six handled one at a time', () => svc.recorder.calls.length >= 6);
      expect(svc.recorder.maxRunning).toBe(1);
      expect(asked.length).toBeGreaterThan(0);
      room = true;
      await waitFor('all 12 handled', () => svc.recorder.calls.length === 12);
      expect(svc.recorder.maxRunning).toBeGreaterThan(1);
      expect(svc.recorder.maxRunning).toBeLessThanOrEqual(4);
    });

    it('keeps held messages in progress past the ack wait, and hands them back on close', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const svc = await startService({
        label: 'held',
        concurrency: 1,
        ackWaitMs: 2000,
        fair: { prefetch: 10 },
        behaviour: () => gate,
        before: async ({ prefix }) => {
          for (let i = 0; i < 5; i++) {
            await publish(`${prefix}.ok`, { tenant: 'A', i });
          }
        },
      });
      await waitFor('the first handler', () => svc.recorder.calls.length === 1);
      // Four messages held for two and a half ack waits: none redelivered.
      await sleep(5000);
      const info = await consumerInfo(svc);
      expect(info.num_ack_pending).toBe(5);
      expect(info.num_redelivered).toBe(0);
      const closing = svc.app.close();
      release();
      await closing;
      // The four never started here are handed back at once: another puller gets them well within
      // the ack wait (a message merely dropped would come back only after it).
      const t0 = Date.now();
      const other = await publisher.js.consumers.get(svc.stream, svc.durable);
      const got: number[] = [];
      for await (const m of await other.fetch({ max_messages: 4, expires: 1500 })) {
        got.push((JSON.parse(new TextDecoder().decode(m.data)) as { i: number }).i);
        m.ack();
      }
      expect(got.sort()).toEqual([1, 2, 3, 4]);
      expect(Date.now() - t0).toBeLessThan(1500);
    });
  });

  it('close() waits for the in-flight handler, which is then acked', async () => {
    const svc = await startService({ label: 'close', behaviour: () => sleep(1500) });

    await publish(`${svc.prefix}.ok`, { closing: true });
    await waitFor('the handler', () => svc.recorder.calls.length === 1);

    const closeStarted = Date.now();
    await svc.app.close();
    const closedAt = Date.now();

    const [call] = svc.recorder.calls;
    expect(call.endedAt).toBeDefined();
    expect(call.endedAt!).toBeLessThanOrEqual(closedAt);
    expect(closedAt - closeStarted).toBeGreaterThanOrEqual(1000);
    expect(call.acks).toBe(1);
    expect(await streamMessages(svc.stream)).toBe(0);
    // Nothing is pulled any more after close().
    await publish(`${svc.prefix}.ok`, { after: 'close' });
    await sleep(500);
    expect(svc.recorder.calls).toHaveLength(1);
    expect(await streamMessages(svc.stream)).toBe(1);
  });

  it('delivers what JetStreamClient.emit(subject, {msgId, payload}) published, once per msgId', async () => {
    const svc = await startService({ label: 'emit' });
    const client = new JetStreamClient({
      servers: nats!.url,
      name: 'emit-spec',
      streams: [{ name: svc.stream, subjects: [`${svc.prefix}.>`] }],
    });
    conns.push(client);

    const emit = (msgId: string, payload: unknown) =>
      new Promise<unknown>((resolve, reject) => {
        client.emit(`${svc.prefix}.ok`, { msgId, payload }).subscribe({ next: resolve, error: reject });
      });
    await emit('emit-1', { hello: 'world' });
    await emit('emit-1', { hello: 'again' });

    await waitFor('the handler', () => svc.recorder.calls.length === 1);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    await sleep(300);
    expect(svc.recorder.calls).toHaveLength(1);
    expect(svc.recorder.calls[0].data).toEqual({ hello: 'world' });
    expect(svc.recorder.calls[0].msgIdHeader).toBe('emit-1');
    await client.close();
  });

  it('routes sy.delta.planner to an @EventPattern("sy.delta.*") handler', async () => {
    const svc = await startService({
      label: 'wild',
      subject: () => 'sy.delta.>',
      pattern: () => 'sy.delta.*',
    });

    await publish('sy.delta.planner', { from: 'planner' });
    await publish('sy.delta.planner.extra', { deeper: true }); // `*` is one token: no handler

    await waitFor('the handler', () => svc.recorder.calls.length === 1);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    await sleep(300);
    expect(svc.recorder.calls).toHaveLength(1);
    expect(svc.recorder.calls[0].subject).toBe('sy.delta.planner');
    expect(svc.recorder.calls[0].data).toEqual({ from: 'planner' });
    expect(svc.recorder.calls[0].acks).toBe(1);
    expect((await consumerInfo(svc)).num_redelivered).toBe(0);
  });

  it('routes the dotted node names under a prefix to one `sy.task.*.mcp.>` handler (NodePrefixHandler)', async () => {
    const svc = await startService({
      label: 'prefix',
      subject: () => 'sy.task.>',
      pattern: () => 'sy.task.*.mcp.>',
    });

    await publish('sy.task.tool-executor.mcp.fs.read_file', { node: 'mcp.fs.read_file' });
    await publish('sy.task.tool-executor.mcp', { node: 'mcp' }); // no segment after the prefix: no handler
    await publish('sy.task.tool-executor.calculator', { node: 'calculator' });

    await waitFor('the handler', () => svc.recorder.calls.length === 1);
    await waitFor('the stream to empty', async () => (await streamMessages(svc.stream)) === 0);
    await sleep(300);
    expect(svc.recorder.calls.map((c) => c.subject)).toEqual(['sy.task.tool-executor.mcp.fs.read_file']);
    expect(svc.recorder.calls[0].acks).toBe(1);
  });
});
