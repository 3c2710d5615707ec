import {
  AckPolicy,
  type ConsumerConfig,
  type JetStreamClient,
  type JetStreamManager,
  type KV,
  type MsgHdrs,
  type NatsConnection,
  type PubAck,
  RetentionPolicy,
  StorageType,
  connect,
  headers as natsHeaders,
} from 'nats';
import type { PayloadOf, Subject } from '@switchyard/contracts';

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
}

export interface ConsumerSpec {
  stream: string;
  durable: string;
  /** One filter subject: NATS 2.9 refuses more. */
  filter: string;
  ackWaitMs?: number;
  maxDeliver?: number;
  maxAckPending?: number;
}

export interface PublishOptions {
  /** JetStream de-duplicates on it within the stream's duplicate window. */
  msgId: string;
  headers?: Record<string, string>;
  /** Stops waiting out a leader election (e.g. the task was handed back as the service shuts down). */
  signal?: AbortSignal;
}

// How long a publish waits for a stream to elect a leader (cluster) before it fails, and between tries.
const ELECTION_WAIT_MS = 15_000;
const ELECTION_RETRY_MS = 250;

// How long start-up admin calls (streams, consumers, buckets) are tried again while JetStream is busy.
const ADMIN_RETRY_MS = 60_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));
export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

/**
 * One NATS connection with its JetStream client and manager. Framework-free; the Nest
 * transport (`JetStreamServer`) and the publishers build on it.
 */
export class JetStreamConnection {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    /** Copies JetStream keeps of each stream and KV bucket this connection creates (1, 3 or 5). */
    readonly replicas: number,
  ) {}

  /**
   * `servers`: one URL or a comma-separated list (the servers of a JetStream cluster: the client
   * connects to any and moves to another when it goes away). `replicas`: see `replicas` (1).
   */
  static async connect(opts: {
    servers: string;
    name: string;
    replicas?: number;
  }): Promise<JetStreamConnection> {
    const nc = await connect({
      servers: opts.servers.split(',').map((s) => s.trim()),
      name: opts.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // Every request (a publish's ack, a pull, an ack's confirmation) otherwise builds two or
      // three Error objects up front for their stack traces: ~5% of the orchestrator's CPU under
      // load (tools/bench/PROFILE.md). Errors still carry their message and code.
      noAsyncTraces: true,
    });
    // The manager's first request (account info) may time out on a busy cluster at start-up.
    const jsm = await whileBusy(() => nc.jetstreamManager(), ADMIN_RETRY_MS);
    return new JetStreamConnection(nc, nc.jetstream(), jsm, opts.replicas ?? 1);
  }

  /**
   * Creates the stream, or brings its subjects and replicas up to date; safe to call from every
   * replica. (JetStream scales a stream's replicas in place, and its durable consumers with it.)
   */
  async ensureStream(spec: StreamSpec): Promise<void> {
    await this.adminRetry(() => this.ensureStreamOnce(spec));
  }

  /**
   * A JetStream admin call made again while the server does not answer it yet (a request timeout,
   * or 503 while a cluster elects its meta leader): a busy cluster can take seconds at start-up,
   * and a service that gave up there would exit instead of starting. Public for the start-up
   * calls made on what this connection returns (a KV bucket's watch or key listing).
   */
  adminRetry<T>(call: () => Promise<T>, timeoutMs = ADMIN_RETRY_MS): Promise<T> {
    return whileBusy(call, timeoutMs);
  }

  private async ensureStreamOnce(spec: StreamSpec): Promise<void> {
    const config = {
      name: spec.name,
      subjects: [...spec.subjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      // Seconds-wide de-duplication by Nats-Msg-Id (JetStream counts in nanoseconds).
      duplicate_window: 2 * 60 * 1_000_000_000,
      num_replicas: this.replicas,
    };
    try {
      const info = await this.jsm.streams.info(spec.name);
      const missing = spec.subjects.filter((s) => !info.config.subjects.includes(s));
      if (missing.length > 0 || info.config.num_replicas !== this.replicas) {
        await this.jsm.streams.update(spec.name, {
          ...info.config,
          subjects: [...info.config.subjects, ...missing],
          num_replicas: this.replicas,
        });
      }
    } catch (err) {
      if (!isNotFound(err)) {
        throw err;
      }
      try {
        await this.jsm.streams.add(config);
      } catch (addErr) {
        // Another replica may have created it between our info and add (the server then says
        // "already in use" or, for the same subjects, "subjects overlap"): it must exist now.
        const created = await this.jsm.streams.info(spec.name).then(
          () => true,
          () => false,
        );
        if (!created) {
          throw addErr;
        }
      }
    }
    await this.waitForLeader(spec.name);
  }

  /**
   * On a JetStream cluster a stream answers once its replicas have elected a leader, a moment
   * after it was created or scaled: until then a publish into it fails (503, no responders).
   */
  private async waitForLeader(stream: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await this.jsm.streams.info(stream).catch((err: Error) => {
        if (Date.now() > deadline) {
          throw err;
        }
        return undefined;
      });
      if ((info && (!info.cluster || info.cluster.leader)) || Date.now() > deadline) {
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Creates the durable pull consumer shared by every replica of a service (idempotent). */
  async ensureConsumer(spec: ConsumerSpec): Promise<void> {
    await this.adminRetry(() => this.ensureConsumerOnce(spec));
  }

  private async ensureConsumerOnce(spec: ConsumerSpec): Promise<void> {
    const config: Partial<ConsumerConfig> = {
      durable_name: spec.durable,
      filter_subject: spec.filter,
      ack_policy: AckPolicy.Explicit,
      ack_wait: (spec.ackWaitMs ?? 30_000) * 1_000_000,
      max_deliver: spec.maxDeliver ?? 10,
      max_ack_pending: spec.maxAckPending ?? 1000,
    };
    try {
      const info = await this.jsm.consumers.info(spec.stream, spec.durable);
      const c = info.config;
      if (
        c.filter_subject !== spec.filter ||
        c.ack_wait !== config.ack_wait ||
        c.max_deliver !== config.max_deliver ||
        c.max_ack_pending !== config.max_ack_pending
      ) {
        await this.jsm.consumers.update(spec.stream, spec.durable, {
          filter_subject: spec.filter,
          ack_wait: config.ack_wait,
          max_deliver: config.max_deliver,
          max_ack_pending: config.max_ack_pending,
        });
      }
    } catch (err) {
      if (!isNotFound(err)) {
        throw err;
      }
      await this.jsm.consumers.add(spec.stream, config);
    }
  }

  /**
   * Publishes a message of the system (its payload type follows from the subject, per
   * `SubjectPayloads` in libs/contracts) and waits for the stream's acknowledgement.
   */
  publish<S extends Subject>(subject: S, payload: PayloadOf<S>, opts: PublishOptions): Promise<PubAck> {
    return this.publishUnchecked(subject, payload, opts);
  }

  /** Any subject, any payload: for the transport's own tests and tools, not for services. */
  async publishUnchecked(subject: string, payload: unknown, opts: PublishOptions): Promise<PubAck> {
    let hdrs: MsgHdrs | undefined;
    if (opts.headers) {
      hdrs = natsHeaders();
      for (const [k, v] of Object.entries(opts.headers)) {
        hdrs.set(k, v);
      }
    }
    const data = encodeJson(payload);
    const deadline = Date.now() + ELECTION_WAIT_MS;
    for (;;) {
      try {
        return await this.js.publish(subject, data, { msgID: opts.msgId, headers: hdrs });
      } catch (err) {
        // On a cluster, a stream whose leader's server just died answers nothing (503, no
        // responders) or never acknowledges (TIMEOUT) until the replicas left have elected a
        // leader: sending again with the same id (JetStream stores it once) waits that out
        // rather than failing what published it. (On a single server a 503 means no stream
        // captures the subject: that fails at once, as does anything else.)
        const code = (err as { code?: string }).code ?? '';
        const electing = (code === '503' || code === 'TIMEOUT') && !!this.nc.info?.cluster;
        if (!electing || Date.now() >= deadline || this.nc.isClosed() || opts.signal?.aborted) {
          throw err;
        }
        await new Promise((r) => setTimeout(r, ELECTION_RETRY_MS));
      }
    }
  }

  /**
   * A KV bucket (created when missing, with `replicas` copies; an existing one is brought to
   * that count); `ttlMs` bounds how long its entries live.
   */
  async kv(bucket: string, opts: { ttlMs?: number } = {}): Promise<KV> {
    return this.adminRetry(() => this.kvOnce(bucket, opts));
  }

  private async kvOnce(bucket: string, opts: { ttlMs?: number }): Promise<KV> {
    const kv = await this.js.views.kv(bucket, {
      history: 1,
      replicas: this.replicas,
      ...(opts.ttlMs ? { ttl: opts.ttlMs } : {}),
    });
    const stream = `KV_${bucket}`;
    const info = await this.jsm.streams.info(stream);
    if (info.config.num_replicas !== this.replicas) {
      await this.jsm.streams.update(stream, { ...info.config, num_replicas: this.replicas });
    }
    await this.waitForLeader(stream);
    // A put the cluster does not acknowledge in time (a replicated bucket on a busy cluster, a
    // leader being elected) is sent again, like an admin call: writing the same value twice is
    // harmless, and a service must not crash at start-up over a slow ack. A compare-and-set put
    // (previousSeq) is left to its caller.
    const put = kv.put.bind(kv);
    kv.put = (key, data, opts) =>
      opts?.previousSeq !== undefined ? put(key, data, opts) : this.adminRetry(() => put(key, data, opts));
    return kv;
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) {
      await this.nc.drain();
    }
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: string; api_error?: { err_code?: number }; message?: string };
  return (
    e?.api_error?.err_code === 10059 ||
    e?.api_error?.err_code === 10014 ||
    /not found/i.test(String(e?.message))
  );
}

/** Calls `call` again while JetStream does not answer it yet (TIMEOUT, or 503), for `timeoutMs`. */
async function whileBusy<T>(call: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? '');
      if (!(code === 'TIMEOUT' || code === '503') || Date.now() > deadline) {
        throw err;
      }
      await new Promise((r) => setTimeout(r, Math.min(2000, 200 * attempt)));
    }
  }
}
