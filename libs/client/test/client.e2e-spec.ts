import { randomUUID } from 'node:crypto';
import { type Server, type Socket, createServer, connect } from 'node:net';
import {
  AgentVersionListSchema,
  CancelledRunSchema,
  CollectionSchema,
  CreatedApiKeySchema,
  DeletedAgentSchema,
  IngestedSchema,
  SearchResponseSchema,
  TenantSchema,
  ToolListSchema,
  UsagePageSchema,
} from '@switchyard/contracts';
import { TestStack, freePort, readSse, waitFor } from '@switchyard/testing';
import { SwitchyardApiError, SwitchyardClient } from '../src';

// The client against the real gateway, through a TCP proxy that misbehaves like a network: it
// cuts event streams mid-frame and answers a request with a 503 once. The client must still
// deliver every event exactly once, in order, and retry only what is safe to retry.

let stack: TestStack;
let proxy: FlakyProxy;
const ADMIN = `admin-${randomUUID()}`;

/** A TCP proxy to the gateway that can cut event streams after some bytes, and fail one request. */
class FlakyProxy {
  readonly cuts: number[] = [];
  /** Bytes after which the next event streams are cut, one entry per stream. */
  cutAfter: number[] = [];
  /** The next requests whose first line includes this are answered 503 (once each). */
  failNext: string[] = [];
  private server!: Server;
  port = 0;

  async start(target: number): Promise<void> {
    this.port = await freePort();
    this.server = createServer((client: Socket) => {
      const upstream = connect(target, '127.0.0.1');
      let sent = 0;
      let limit: number | undefined;
      client.on('data', (chunk: Buffer) => {
        // Each request on this (kept-alive) connection starts a chunk with its request line.
        const line = chunk.toString('latin1').split('\r\n')[0];
        if (/^[A-Z]+ \S+ HTTP\/1\.1$/.test(line)) {
          const fail = this.failNext.findIndex((f) => line.includes(f));
          if (fail >= 0) {
            this.failNext.splice(fail, 1);
            client.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
            upstream.destroy();
            return;
          }
          if (line.includes('/events')) {
            limit = this.cutAfter.shift();
            sent = 0;
          }
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (limit !== undefined && sent + chunk.length > limit) {
          client.write(chunk.subarray(0, Math.max(0, limit - sent)));
          this.cuts.push(limit);
          client.destroy();
          upstream.destroy();
          return;
        }
        sent += chunk.length;
        client.write(chunk);
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close);
      upstream.on('error', close);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.end());
    });
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    // Streams end (with `close`) after 2 s: the client must carry on across those ends too.
    env: { SWITCHYARD_SSE_MAX_LIFETIME_MS: '2000', SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
  proxy = new FlakyProxy();
  await proxy.start(stack.ports.get('gateway')!);
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await stack?.stop();
});

const client = () =>
  new SwitchyardClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: stack.key, backoffMs: 20 });

describe('@switchyard/client against the gateway', () => {
  it('follows a run through three dropped connections: every event once, in order, as the gateway sent them', async () => {
    const sy = client();
    const run = await sy.runs.create({ input: { prompt: '[long-answer] tell me a story' } });
    // Cut the stream mid-frame three times, at different depths.
    proxy.cutAfter = [700, 900, 1100];
    const seen = [];
    for await (const e of sy.runs.events(run.run_id)) {
      seen.push(e);
    }
    expect(proxy.cuts).toEqual([700, 900, 1100]);
    const direct = await readSse(`${stack.gatewayUrl}/v1/runs/${run.run_id}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
    });
    const seqs = seen.map((e) => ('seq' in e ? e.seq : e.event_type));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual(direct.frames.map((f) => f.id));
    expect(seen.at(-1)?.event_type).toBe('done');
    const tokens = seen
      .filter((e) => e.event_type === 'token')
      .map((e) => (e.payload as { text: string }).text)
      .join('');
    expect((await sy.runs.get(run.run_id)).output?.answer).toBe(tokens);
  });

  it('retries a run creation the gateway failed (503) with the same request id: one run, not two', async () => {
    const sy = client();
    proxy.failNext = ['POST /v1/runs'];
    const run = await sy.runs.create({
      input: { prompt: 'what is 2+3*4?' },
      request_id: 'client-e2e-retry-1',
    });
    expect(proxy.failNext).toEqual([]);
    const again = await sy.runs.create({
      input: { prompt: 'what is 2+3*4?' },
      request_id: 'client-e2e-retry-1',
    });
    expect(again.run_id).toBe(run.run_id);
    expect((await sy.runs.wait(run.run_id)).status).toBe('succeeded');
  });

  it('does not retry an answer to a question (not idempotent): the 503 reaches the caller', async () => {
    const sy = client();
    proxy.failNext = ['/resume'];
    const err = await sy.runs
      .resume('0b9f6c1e-8d3a-4c5b-9e6f-1a2b3c4d5e6f', { name: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwitchyardApiError);
    expect((err as SwitchyardApiError).status).toBe(503);
  });

  it("types the gateway's errors by their code", async () => {
    const missing = await client()
      .runs.get('0b9f6c1e-8d3a-4c5b-9e6f-1a2b3c4d5e6f')
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const bad = new SwitchyardClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: 'sy_nope' });
    expect(await bad.agents.list().catch((e: unknown) => e)).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
  });

  it('lists and deletes threads and uploads, reads and deletes files, with the shapes its types say', async () => {
    const sy = client();
    const run = await sy.runs.create({ input: { prompt: 'what is 2+3*4?' } });
    await sy.runs.wait(run.run_id);
    const page = await sy.threads.list({ limit: 200 });
    const thread = page.threads.find((t) => t.thread_id === run.thread_id)!;
    // Exactly the fields `Thread` declares, with their types.
    expect(Object.keys(thread).sort()).toEqual(
      ['active_run_id', 'agent_id', 'created_at', 'thread_id', 'title', 'turns', 'version'].sort(),
    );
    expect(thread).toMatchObject({ agent_id: 'default', active_run_id: null, turns: 1 });
    expect(typeof thread.version).toBe('number');
    expect(await sy.threads.get(run.thread_id)).toEqual(thread);

    const file = await sy.files.upload(new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    expect(Object.keys(file).sort()).toEqual(['created_at', 'id', 'mime_type', 'name', 'run_id', 'size']);
    expect(file).toMatchObject({ name: 'hello.txt', mime_type: 'text/plain', size: 5, run_id: null });
    expect(await sy.files.get(file.id)).toEqual(file);
    await sy.files.delete(file.id);
    expect(await sy.files.get(file.id).catch((e: unknown) => e)).toMatchObject({ status: 404 });

    expect(await sy.threads.delete(run.thread_id)).toEqual({
      deleted: true,
      thread_id: run.thread_id,
      runs_deleted: 1,
    });
    expect(await sy.threads.get(run.thread_id).catch((e: unknown) => e)).toMatchObject({ status: 404 });
  });

  it('makes a tenant and its key, manages agents and collections, lists tools, cancels a run: the contracts shapes, strictly', async () => {
    const admin = new SwitchyardClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      apiKey: stack.key,
      adminToken: ADMIN,
      backoffMs: 20,
    });
    const tenant = await admin.admin.createTenant({ name: `client-e2e-${randomUUID()}` });
    expect(TenantSchema.strict().parse(tenant)).toEqual(tenant);
    const key = await admin.admin.createKey(tenant.id, { label: 'e2e' });
    expect(CreatedApiKeySchema.strict().parse(key)).toEqual(key);
    expect(key.label).toBe('e2e');
    const sy = new SwitchyardClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      apiKey: key.key,
      backoffMs: 20,
    });

    const tools = await sy.tools.list();
    expect(ToolListSchema.strict().parse(tools)).toEqual(tools);
    expect(tools.tools.length).toBeGreaterThan(0);
    for (const tool of tools.tools) {
      expect(ToolListSchema.shape.tools.element.strict().parse(tool)).toEqual(tool);
    }

    const agent = await sy.agents.create({ name: 'e2e-agent', max_steps: 10 });
    await sy.agents.publish(agent.id);
    const versions = await sy.agents.versions(agent.id);
    expect(AgentVersionListSchema.strict().parse(versions)).toEqual(versions);
    expect(versions.versions.map((v) => [v.version, v.agent_id])).toEqual([
      [1, agent.id],
      [2, agent.id],
    ]);
    for (const v of versions.versions) {
      expect(AgentVersionListSchema.shape.versions.element.strict().parse(v)).toEqual(v);
    }
    const deleted = await sy.agents.delete(agent.id);
    expect(DeletedAgentSchema.strict().parse(deleted)).toEqual({ id: agent.id, deleted: true });

    const collection = await sy.collections.create({ name: 'manuals', index_sets: [{ index_name: 'main' }] });
    expect(CollectionSchema.strict().parse(collection)).toEqual(collection);
    const ingested = await sy.collections.addDocuments(collection.id, {
      documents: [
        { text: 'Reset the router by holding its button for ten seconds.', metadata: { page: 4 } },
        { text: 'The warranty covers two years from the date of purchase.' },
      ],
    });
    expect(IngestedSchema.strict().parse(ingested)).toEqual({ ingested: 2 });
    const read = await sy.collections.get(collection.id);
    expect(CollectionSchema.strict().parse(read)).toEqual(read);
    expect(read.indexingList.map((i) => i.status)).toEqual(['done']);
    const found = await sy.collections.search(collection.id, { query: 'reset the router', top_k: 2 });
    expect(SearchResponseSchema.strict().parse(found)).toEqual(found);
    expect(found.results.length).toBeGreaterThan(0);
    for (const r of found.results) {
      expect(SearchResponseSchema.shape.results.element.strict().parse(r)).toEqual(r);
    }

    const run = await sy.runs.create({ input: { prompt: '[slow] take your time' } });
    const cancelling = await sy.runs.cancel(run.run_id);
    expect(CancelledRunSchema.strict().parse(cancelling)).toEqual({
      run_id: run.run_id,
      status: 'cancelling',
    });
    expect((await sy.runs.wait(run.run_id)).status).toBe('cancelled');
    expect(await sy.runs.cancel(run.run_id)).toEqual({ run_id: run.run_id, status: 'cancelled' });

    const done = await sy.runs.create({ input: { prompt: 'what is 2+2?' } });
    await sy.runs.wait(done.run_id);
    const usage = await admin.admin.usage({ tenant_id: tenant.id, limit: 1 });
    expect(UsagePageSchema.strict().parse(usage)).toEqual(usage);
    expect(usage.usage.length).toBe(1);
    for (const u of usage.usage) {
      expect(UsagePageSchema.shape.usage.element.strict().parse(u)).toEqual(u);
    }
  });

  it("ends a stream at its lifetime with a close event, and the client carries on to the run's end", async () => {
    const sy = client();
    const run = await sy.runs.create({ input: { prompt: '[ask] greet me' } });
    await waitFor('the run to wait', async () => (await sy.runs.get(run.run_id)).status === 'waiting');
    const started = Date.now();
    const raw = await readSse(`${stack.gatewayUrl}/v1/runs/${run.run_id}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      timeoutMs: 10_000,
    });
    // The gateway ended the stream itself, long before the reader's own timeout.
    expect(Date.now() - started).toBeLessThan(8_000);
    const close = raw.close!;
    expect(close.event).toBe('close');
    expect(close.id).toBeUndefined();
    expect(JSON.parse(close.data).payload).toEqual({ reason: 'lifetime', reconnect: true });

    const seen: string[] = [];
    const following = (async () => {
      for await (const e of sy.runs.events(run.run_id)) {
        seen.push('seq' in e ? e.seq : e.event_type);
      }
    })();
    // Answer after the client's stream has been closed and reopened at least once.
    await new Promise((r) => setTimeout(r, 4_500));
    await sy.runs.resume(run.run_id, { name: 'Ada' });
    await following;
    const direct = await readSse(`${stack.gatewayUrl}/v1/runs/${run.run_id}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
    });
    expect(seen).toEqual(direct.frames.map((f) => f.id));
    // Once the run is over its stream ends with a close that says not to come back.
    expect(JSON.parse(direct.close!.data).payload).toEqual({ reason: 'run_ended', reconnect: false });
    expect((await sy.runs.get(run.run_id)).status).toBe('succeeded');
  }, 60_000);

  it('a gateway told to stop ends its open streams with close (reconnect) and exits, instead of waiting on them', async () => {
    const sy = client();
    const run = await sy.runs.create({ input: { prompt: '[ask] greet me' } });
    await waitFor('the run to wait', async () => (await sy.runs.get(run.run_id)).status === 'waiting');
    const reading = readSse(`${stack.gatewayUrl}/v1/runs/${run.run_id}/events`, {
      headers: { Authorization: `Bearer ${stack.key}` },
      timeoutMs: 10_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    const stopped = Date.now();
    stack.kill('gateway', 'SIGTERM');
    const raw = await reading;
    expect(JSON.parse(raw.close!.data).payload).toEqual({ reason: 'shutdown', reconnect: true });
    await waitFor(
      'the gateway to exit',
      async () =>
        await fetch(`${stack.gatewayUrl}/healthz`).then(
          () => false,
          () => true,
        ),
      10_000,
    );
    expect(Date.now() - stopped).toBeLessThan(10_000);
    await stack.restart('gateway');
    expect((await sy.runs.resume(run.run_id, { name: 'Ada' })) as object).toBeDefined();
    expect((await sy.runs.wait(run.run_id)).status).toBe('succeeded');
  }, 60_000);
});
