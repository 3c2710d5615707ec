import { connect, type NatsConnection } from 'nats';
import { isTransientPublishError } from './node-runtime';

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
