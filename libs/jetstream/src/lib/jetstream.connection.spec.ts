import { AckPolicy, RetentionPolicy } from 'nats';
import { NatsServerProcess, within } from '@switchyard/testing';
import { JetStreamClient } from './jetstream.client';
import { JetStreamConnection, decodeJson } from './jetstream.connection';

// Integration tests against a real nats-server (JetStream) started by this file on a spare port.

jest.setTimeout(20_000);

let seq = 0;
/** Unique stream name and subject prefix per test: streams on one server may not share subjects. */
function unique(label: string): { stream: string; prefix: string } {
  seq += 1;
  return { stream: `CONN_${label.toUpperCase()}_${seq}`, prefix: `tc${seq}.${label}` };
}

describe('JetStreamConnection (real nats-server)', () => {
  let nats: NatsServerProcess | undefined;
  const open: { close(): Promise<void> }[] = [];

  async function connection(name = 'conn-spec'): Promise<JetStreamConnection> {
    const conn = await JetStreamConnection.connect({ servers: nats!.url, name });
    open.push(conn);
    return conn;
  }

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
  });

  afterAll(async () => {
    for (const c of open.splice(0)) {
      await within(
        c.close().catch(() => undefined),
        3000,
      );
    }
    await nats?.stop();
  });

  describe('ensureStream', () => {
    it('creates a work-queue stream with a de-duplication window, and is idempotent', async () => {
      const conn = await connection();
      const { stream, prefix } = unique('stream');
      const spec = { name: stream, subjects: [`${prefix}.a`, `${prefix}.b.*`] };

      await conn.ensureStream(spec);
      await conn.ensureStream(spec);

      const info = await conn.jsm.streams.info(stream);
      expect(info.config.subjects).toEqual([`${prefix}.a`, `${prefix}.b.*`]);
      expect(info.config.retention).toBe(RetentionPolicy.Workqueue);
      expect(info.config.duplicate_window).toBe(120 * 1_000_000_000);
      const names: string[] = [];
      for await (const s of conn.jsm.streams.list()) {
        names.push(s.config.name);
      }
      expect(names.filter((n) => n === stream)).toHaveLength(1);
    });

    it('is safe when two connections create the same stream at the same time', async () => {
      const [a, b] = await Promise.all([connection('a'), connection('b')]);
      const { stream, prefix } = unique('race');
      const spec = { name: stream, subjects: [`${prefix}.>`] };

      await expect(
        Promise.all([a.ensureStream(spec), b.ensureStream(spec), a.ensureStream(spec), b.ensureStream(spec)]),
      ).resolves.toBeDefined();

      const info = await a.jsm.streams.info(stream);
      expect(info.config.subjects).toEqual([`${prefix}.>`]);
    });

    it('adds a missing subject to an existing stream and keeps the ones it has', async () => {
      const conn = await connection();
      const { stream, prefix } = unique('grow');
      await conn.ensureStream({ name: stream, subjects: [`${prefix}.a`] });

      await conn.ensureStream({ name: stream, subjects: [`${prefix}.a`, `${prefix}.b`] });
      await conn.ensureStream({ name: stream, subjects: [`${prefix}.c`] });

      const info = await conn.jsm.streams.info(stream);
      expect([...info.config.subjects].sort()).toEqual([`${prefix}.a`, `${prefix}.b`, `${prefix}.c`]);
      // The added subject really is captured by the stream.
      const ack = await conn.publishUnchecked(`${prefix}.b`, { n: 1 }, { msgId: `${prefix}-b-1` });
      expect(ack.stream).toBe(stream);
    });
  });

  describe('ensureConsumer', () => {
    it('creates a durable explicit-ack pull consumer with the given settings, and is idempotent', async () => {
      const conn = await connection();
      const { stream, prefix } = unique('consumer');
      await conn.ensureStream({ name: stream, subjects: [`${prefix}.>`] });
      const spec = {
        stream,
        durable: 'worker',
        filter: `${prefix}.task`,
        ackWaitMs: 1500,
        maxDeliver: 4,
        maxAckPending: 7,
      };

      await conn.ensureConsumer(spec);
      await conn.ensureConsumer(spec);

      const info = await conn.jsm.consumers.info(stream, 'worker');
      expect(info.config.durable_name).toBe('worker');
      expect(info.config.filter_subject).toBe(`${prefix}.task`);
      expect(info.config.ack_policy).toBe(AckPolicy.Explicit);
      expect(info.config.ack_wait).toBe(1500 * 1_000_000);
      expect(info.config.max_deliver).toBe(4);
      expect(info.config.max_ack_pending).toBe(7);
      expect(info.config.deliver_subject).toBeUndefined(); // pull consumer
      const names: string[] = [];
      for await (const c of conn.jsm.consumers.list(stream)) {
        names.push(c.name);
      }
      expect(names).toEqual(['worker']);
    });

    it('is safe when two connections create the same consumer at the same time', async () => {
      const [a, b] = await Promise.all([connection('a'), connection('b')]);
      const { stream, prefix } = unique('crace');
      await a.ensureStream({ name: stream, subjects: [`${prefix}.>`] });
      const spec = { stream, durable: 'shared', filter: `${prefix}.x`, ackWaitMs: 2000 };

      await expect(
        Promise.all([a.ensureConsumer(spec), b.ensureConsumer(spec), a.ensureConsumer(spec)]),
      ).resolves.toBeDefined();

      const info = await b.jsm.consumers.info(stream, 'shared');
      expect(info.config.ack_wait).toBe(2000 * 1_000_000);
      expect(info.config.filter_subject).toBe(`${prefix}.x`);
    });

    it('brings the ack wait of an existing consumer up to date', async () => {
      const conn = await connection();
      const { stream, prefix } = unique('ackwait');
      await conn.ensureStream({ name: stream, subjects: [`${prefix}.>`] });
      await conn.ensureConsumer({ stream, durable: 'w', filter: `${prefix}.x`, ackWaitMs: 5000 });

      await conn.ensureConsumer({ stream, durable: 'w', filter: `${prefix}.x`, ackWaitMs: 9000 });

      const info = await conn.jsm.consumers.info(stream, 'w');
      expect(info.config.ack_wait).toBe(9000 * 1_000_000);
    });

    it('fails when the stream does not exist', async () => {
      const conn = await connection();
      await expect(
        conn.ensureConsumer({ stream: 'NO_SUCH_STREAM', durable: 'w', filter: 'nothing.here' }),
      ).rejects.toThrow();
    });
  });

  describe('publish', () => {
    it('stores JSON and de-duplicates on the msgId', async () => {
      const conn = await connection();
      const { stream, prefix } = unique('dedup');
      await conn.ensureStream({ name: stream, subjects: [`${prefix}.>`] });

      const first = await conn.publishUnchecked(`${prefix}.evt`, { run: 1 }, { msgId: 'same-id' });
      const second = await conn.publishUnchecked(`${prefix}.evt`, { run: 'changed' }, { msgId: 'same-id' });
      const other = await conn.publishUnchecked(`${prefix}.evt`, { run: 2 }, { msgId: 'other-id' });

      expect(first.duplicate).toBe(false);
      expect(second.duplicate).toBe(true);
      expect(second.seq).toBe(first.seq);
      expect(other.duplicate).toBe(false);
      const info = await conn.jsm.streams.info(stream);
      expect(info.state.messages).toBe(2);
      const stored = await conn.jsm.streams.getMessage(stream, { seq: first.seq });
      expect(decodeJson(stored.data)).toEqual({ run: 1 });
      expect(stored.header.get('Nats-Msg-Id')).toBe('same-id');
    });

    it('sends the given headers', async () => {
      const conn = await connection();
      const { stream, prefix } = unique('headers');
      await conn.ensureStream({ name: stream, subjects: [`${prefix}.>`] });

      const ack = await conn.publishUnchecked(`${prefix}.evt`, null, {
        msgId: 'h-1',
        headers: { 'x-run-id': 'r-1', traceparent: '00-abc-def-01' },
      });

      const stored = await conn.jsm.streams.getMessage(stream, { seq: ack.seq });
      expect(stored.header.get('x-run-id')).toBe('r-1');
      expect(stored.header.get('traceparent')).toBe('00-abc-def-01');
      expect(decodeJson(stored.data)).toBeNull();
    });

    it('rejects a subject no stream captures instead of losing the message', async () => {
      const conn = await connection();
      await expect(conn.publishUnchecked('no.stream.here', {}, { msgId: 'x' })).rejects.toThrow();
    });
  });

  describe('kv and close', () => {
    it('opens a KV bucket that keeps one revision per key', async () => {
      const conn = await connection();
      const kv = await conn.kv(`conn_kv_${++seq}`);
      await kv.put('k', new TextEncoder().encode('v1'));
      await kv.put('k', new TextEncoder().encode('v2'));

      const entry = await kv.get('k');
      expect(new TextDecoder().decode(entry?.value)).toBe('v2');
      const status = await kv.status();
      expect(status.history).toBe(1);
    });

    it('close() drains the connection and may be called twice', async () => {
      const conn = await connection();
      await conn.close();
      expect(conn.nc.isClosed()).toBe(true);
      await expect(conn.close()).resolves.toBeUndefined();
    });
  });

  describe('JetStreamClient', () => {
    it('creates its streams on connect and publishes with de-duplication through publishEvent and emit', async () => {
      const { stream, prefix } = unique('client');
      const client = new JetStreamClient({
        servers: nats!.url,
        name: 'client-spec',
        streams: [{ name: stream, subjects: [`${prefix}.>`] }],
      });
      open.push(client);
      expect(client.isConnected()).toBe(false);

      const ack = await client.publishEvent(`${prefix}.one`, { msgId: 'c-1', payload: { a: 1 } });
      expect(ack.stream).toBe(stream);
      expect(client.isConnected()).toBe(true);
      const dup = await client.publishEvent(`${prefix}.one`, { msgId: 'c-1', payload: { a: 1 } });
      expect(dup.duplicate).toBe(true);

      const emitted = await new Promise<unknown>((resolve, reject) => {
        client
          .emit(`${prefix}.two`, { msgId: 'c-2', payload: { b: 2 } })
          .subscribe({ next: resolve, error: reject });
      });
      expect(emitted).toMatchObject({ stream, duplicate: false });

      const conn = client.unwrap<JetStreamConnection>();
      const info = await conn.jsm.streams.info(stream);
      expect(info.state.messages).toBe(2);
      const last = await conn.jsm.streams.getMessage(stream, { last_by_subj: `${prefix}.two` });
      expect(decodeJson(last.data)).toEqual({ b: 2 });
      expect(last.header.get('Nats-Msg-Id')).toBe('c-2');

      await client.close();
      expect(client.isConnected()).toBe(false);
    });

    it('refuses request/reply', async () => {
      const { stream, prefix } = unique('rpc');
      const client = new JetStreamClient({
        servers: nats!.url,
        name: 'client-spec',
        streams: [{ name: stream, subjects: [`${prefix}.>`] }],
      });
      open.push(client);
      await expect(
        new Promise((resolve, reject) => {
          client.send(`${prefix}.q`, { msgId: 'q', payload: {} }).subscribe({ next: resolve, error: reject });
        }),
      ).rejects.toThrow(/emit\(\) only/);
    });
  });
});
