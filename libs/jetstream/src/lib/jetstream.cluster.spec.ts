import { NatsCluster, within } from '@switchyard/testing';
import { JetStreamConnection, decodeJson } from './jetstream.connection';

// Against a real three-node JetStream cluster started by this file (nats-servers on loopback).

jest.setTimeout(60_000);

let cluster: NatsCluster | undefined;
const open: JetStreamConnection[] = [];
let seq = 0;

async function connection(replicas: number): Promise<JetStreamConnection> {
  const conn = await JetStreamConnection.connect({ servers: cluster!.urls, name: 'cluster-spec', replicas });
  open.push(conn);
  return conn;
}

beforeAll(async () => {
  cluster = await NatsCluster.start({ size: 3 });
}, 60_000);

afterAll(async () => {
  for (const c of open.splice(0)) {
    await within(
      c.close().catch(() => undefined),
      3000,
    );
  }
  await cluster?.stop();
});

it('creates streams and KV buckets with the replicas asked, and scales existing ones with their consumers', async () => {
  const name = `CL_SCALE_${++seq}`;
  const one = await connection(1);
  await one.ensureStream({ name, subjects: [`cl${seq}.>`] });
  await one.ensureConsumer({ stream: name, durable: 'svc', filter: `cl${seq}.>` });
  await one.kv(`cl_kv_${seq}`);
  expect((await one.jsm.streams.info(name)).config.num_replicas).toBe(1);

  const three = await connection(3);
  await three.ensureStream({ name, subjects: [`cl${seq}.>`] });
  await three.ensureConsumer({ stream: name, durable: 'svc', filter: `cl${seq}.>` });
  await three.kv(`cl_kv_${seq}`);
  const stream = await three.jsm.streams.info(name);
  expect(stream.config.num_replicas).toBe(3);
  expect(stream.cluster?.replicas).toHaveLength(2);
  expect((await three.jsm.streams.info(`KV_cl_kv_${seq}`)).config.num_replicas).toBe(3);
  const consumer = await waitForFollowers(three, name, 'svc');
  expect(consumer).toBe(2);
});

it('a new replicated stream and bucket take writes as soon as they are ensured', async () => {
  const conn = await connection(3);
  for (let i = 0; i < 3; i++) {
    const name = `CL_NEW_${++seq}`;
    await conn.ensureStream({ name, subjects: [`cn${seq}.>`] });
    await expect(conn.publishUnchecked(`cn${seq}.a`, { i }, { msgId: `m${i}` })).resolves.toMatchObject({
      stream: name,
    });
    const kv = await conn.kv(`cl_new_${seq}`);
    await expect(kv.put('k', new TextEncoder().encode('v'))).resolves.toBeGreaterThan(0);
  }
});

it("a publish waits while the stream elects a new leader after its leader's server died", async () => {
  const conn = await connection(3);
  const name = `CL_FAILOVER_${++seq}`;
  await conn.ensureStream({ name, subjects: [`cf${seq}.>`] });
  await conn.publishUnchecked(`cf${seq}.a`, { n: 1 }, { msgId: 'one' });
  const leader = await cluster!.leaderOf(name);
  await cluster!.kill(leader);
  try {
    const ack = await conn.publishUnchecked(`cf${seq}.a`, { n: 2 }, { msgId: 'two' });
    expect(ack.duplicate).toBe(false);
    expect((await conn.publishUnchecked(`cf${seq}.a`, { n: 2 }, { msgId: 'two' })).duplicate).toBe(true);
    const info = await conn.jsm.streams.info(name);
    expect(info.cluster?.leader).not.toBe(leader);
    expect(info.state.messages).toBe(2);
    const last = await conn.jsm.streams.getMessage(name, { last_by_subj: `cf${seq}.a` });
    expect(decodeJson(last.data)).toEqual({ n: 2 });
  } finally {
    // Back in the cluster, without waiting for it to catch up: nothing after needs it, and
    // nats-server 2.9 sometimes takes minutes to call a restarted node healthy (its catch-up
    // stalls under load) — a wait that made this test time out now and then.
    await cluster!.startNode(leader, false);
  }
});

async function waitForFollowers(conn: JetStreamConnection, stream: string, durable: string): Promise<number> {
  for (let i = 0; ; i++) {
    const n = (await conn.jsm.consumers.info(stream, durable)).cluster?.replicas?.length ?? 0;
    if (n === 2 || i > 50) {
      return n;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
