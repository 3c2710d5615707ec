import { connect, type NatsConnection } from 'nats';
import { createConnection } from 'node:net';
import { isTransientPublishError, nodeFailureOf } from './node-runtime';

// What nats.js really throws when a delta cannot be published, provoked against the real NATS
// server: the retry loop must wait out an outage and must not retry a refused message.
const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

async function errorOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('isTransientPublishError', () => {
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
  });

  afterAll(async () => {
    await nc?.close();
  });

  it('retries a publish that no stream answered yet (JetStream not ready after a restart)', async () => {
    const err = await errorOf(() =>
      nc.jetstream().publish(`sy.no-stream.${process.pid}.${Date.now()}`, new Uint8Array([1])),
    );
    expect(isTransientPublishError(err)).toBe(true);
  });

  it('retries a publish that timed out', async () => {
    const err = await errorOf(() =>
      nc.jetstream({ timeout: 1 }).publish(`sy.no-stream.${process.pid}.t`, new Uint8Array(64)),
    );
    expect(isTransientPublishError(err)).toBe(true);
  });

  it('retries a publish on a closed connection', async () => {
    const closed = await connect({ servers: NATS_URL });
    await closed.close();
    const err = await errorOf(() => closed.jetstream().publish('sy.closed', new Uint8Array([1])));
    expect(isTransientPublishError(err)).toBe(true);
  });

  it('does not retry a payload over the server limit', async () => {
    const big = new Uint8Array(nc.info!.max_payload + 1);
    const err = await errorOf(() => nc.jetstream().publish('sy.too-big', big));
    expect(isTransientPublishError(err)).toBe(false);
  });

  it('does not retry an error that is not about the connection', () => {
    expect(isTransientPublishError(new Error('invalid delta'))).toBe(false);
    expect(isTransientPublishError(null)).toBe(false);
  });
});

describe('nodeFailureOf', () => {
  it("keeps a catalogue code of the node's error", () => {
    const err = Object.assign(new Error('the model refused the request'), { code: 'llm_rejected' });
    expect(nodeFailureOf(err)).toEqual({ code: 'llm_rejected', message: 'the model refused the request' });
  });

  it("turns a library's own code into node_failed, keeping that code in the message", async () => {
    // A real one: what node's net module throws for a refused connection.
    const refused = await new Promise<Error>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port: 1 });
      socket.on('error', resolve);
    });
    const failure = nodeFailureOf(refused);
    expect(failure.code).toBe('node_failed');
    expect(failure.message).toMatch(/ECONNREFUSED.*\(ECONNREFUSED\)$/);
  });

  it('fails an error without a code, or a thrown non-error, as node_failed', () => {
    expect(nodeFailureOf(new Error('boom'))).toEqual({ code: 'node_failed', message: 'boom' });
    expect(nodeFailureOf('just a string')).toEqual({ code: 'node_failed', message: 'just a string' });
  });
});
