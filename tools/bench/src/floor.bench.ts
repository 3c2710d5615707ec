// The floor of a step on Switchyard's design: the same messages, round trips and commits a step
// of the pure-runtime loop makes, done by three minimal Node processes with the bare clients
// (nats, pg, ioredis) and nothing else — no NestJS, no validation, no state, no routing. What a
// real step costs above this is Switchyard's code; this much is the design's (issue #12).
// Usage: node tools/scripts/build.mjs && node dist/tools/bench/src/floor.bench.js
// Environment: BENCH_REPS (5), BENCH_LOOP_STEPS (30,150,600), BENCH_LOOP_CONCURRENCY (32),
// DATABASE_URL (the Postgres server to make a scratch database on).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import {
  AckPolicy,
  type JetStreamClient,
  type JsMsg,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  connect,
} from 'nats';
import type pg from 'pg';
import { freePort, waitFor } from '@switchyard/testing';
import { describeMachine, machine } from './machine';
import { CpuMeter } from './proc';
import { ScratchDatabase } from './scratch-db';
import { fmtMs, fmtRate, markdownTable, median } from './stats';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const RESULTS = join(ROOT, 'tools', 'bench', 'FLOOR-RESULTS.md');

/** Bytes of random payload per action, as in the pure-runtime loop: ~1 KB once base64-encoded. */
const PAYLOAD_BYTES = 768;
const TASKS = { name: 'FLOOR_TASKS', subjects: ['floor.task.>'] };
const DELTAS = { name: 'FLOOR_DELTAS', subjects: ['floor.delta.>'] };
const START_TASK = `local n = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], 86400)
redis.call('XADD', KEYS[2], '*', 'type', 'node_started', 'payload', ARGV[1], 'ts', ARGV[2])
return n`;

interface Task {
  run_id: string;
  task_id: string;
  step: number;
  version: number;
  /** The delta the node has not seen, shipped with the task (as Switchyard's tasks carry it). */
  deltas: unknown[];
}
interface Delta {
  run_id: string;
  task_id: string;
  base_version: number;
  delta: { action: { node: string; summary: string; result: string; next: string[] } };
}

const encode = (v: unknown) => Buffer.from(JSON.stringify(v));
const decode = <T>(m: JsMsg): T => JSON.parse(Buffer.from(m.data).toString('utf8')) as T;
const eventsKey = (runId: string) => `floor:run:${runId}:events`;

/** Group commit as the orchestrator does it (StepCommitGroup's defaults; BENCH_FLOOR_GROUP=1: each step alone). */
const GROUP_MAX = Math.max(1, Number(process.env['BENCH_FLOOR_GROUP'] ?? 32));
const GROUP_WORKERS = 2;

/** Pulls from a durable consumer `concurrency` messages at a time and hands each to `work`. */
async function consume(
  js: JetStreamClient,
  stream: string,
  durable: string,
  concurrency: number,
  work: (m: JsMsg) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  const consumer = await js.consumers.get(stream, durable);
  const busy = new Set<Promise<void>>();
  while (!stopped()) {
    while (busy.size >= concurrency) {
      await Promise.race(busy);
    }
    const batch = await consumer.fetch({ max_messages: concurrency - busy.size, expires: 5_000 });
    for await (const m of batch) {
      const p = work(m)
        .then(() => m.ack())
        .catch((err: Error) => {
          process.stderr.write(`floor: ${err.message}\n`);
        })
        .finally(() => busy.delete(p));
      busy.add(p);
    }
  }
}

/** The node service's part: count the start and write node_started (one script), reply, ack. */
async function nodeRole(natsUrl: string, redisUrl: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  const js = nc.jetstream();
  const redis = new Redis(redisUrl);
  const result = randomBytes(PAYLOAD_BYTES).toString('base64');
  await consume(
    js,
    TASKS.name,
    'floor-node',
    16,
    async (m) => {
      const task = decode<Task>(m);
      await redis.eval(
        START_TASK,
        2,
        `floor:task:${task.task_id}:starts`,
        eventsKey(task.run_id),
        JSON.stringify({ node: 'n', task_id: task.task_id, attempt: 1 }),
        String(Date.now()),
      );
      const delta: Delta = {
        run_id: task.run_id,
        task_id: task.task_id,
        base_version: task.version,
        delta: { action: { node: 'n', summary: 'done', result, next: ['n'] } },
      };
      await js.publish('floor.delta.n', encode(delta), { msgID: task.task_id });
    },
    () => false,
  );
}

/** The gateway's part: follow every run's events (XREAD BLOCK) and write them as SSE frames. */
async function relayRole(redisUrl: string, port: number): Promise<void> {
  const redis = new Redis(redisUrl);
  const server = createServer((req, res) => {
    const runId = new URL(req.url ?? '/', 'http://x').searchParams.get('run') ?? '';
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!runId) {
      res.end();
      return;
    }
    void (async () => {
      const reader = redis.duplicate();
      let last = '0';
      for (;;) {
        const reply = (await reader.xread('BLOCK', 5000, 'STREAMS', eventsKey(runId), last)) as
          [string, [string, string[]][]][] | null;
        for (const [id, fields] of reply?.[0]?.[1] ?? []) {
          last = id;
          const type = fields[1];
          res.write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(JSON.parse(fields[3]))}\n\n`);
          if (type === 'done') {
            res.end();
            reader.disconnect();
            return;
          }
        }
      }
    })();
  });
  server.listen(port, '127.0.0.1');
}

/** The orchestrator's part, and the run's client: a step is the locked read, the writes, COMMIT, the event, the next task. */
class Orchestrator {
  private readonly waiting = new Map<string, { left: number; done: () => void }>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly pool: pg.Pool,
    private readonly redis: Redis,
  ) {}

  listen(): void {
    void consume(
      this.js,
      DELTAS.name,
      'floor-orchestrator',
      32,
      (m) => this.step(decode<Delta>(m)),
      () => this.nc.isClosed(),
    );
  }

  /** Starts a run of `steps` steps; resolves when its last step is committed. */
  run(runId: string, steps: number): Promise<void> {
    return new Promise<void>((done) => {
      this.waiting.set(runId, { left: steps, done });
      void this.first(runId).catch((err: Error) => process.stderr.write(`floor: ${err.message}\n`));
    });
  }

  private async first(runId: string): Promise<void> {
    await this.pool.query('INSERT INTO threads (id) VALUES ($1)', [runId]);
    await this.pool.query('INSERT INTO runs (id, thread_id, steps) VALUES ($1, $1, 0)', [runId]);
    await this.dispatch(runId, 0, 0, []);
  }

  /**
   * A step, committed in a group (the design's group commit, #29): the steps that arrive while
   * GROUP_WORKERS transactions are busy go together, up to GROUP_MAX (one per run), in one
   * transaction — the locked read and the one write statement each, then one COMMIT.
   */
  private step(msg: Delta): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ msg, resolve, reject });
      this.pump();
    });
  }

  private readonly queue: { msg: Delta; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private readonly inFlight = new Set<string>();
  private busy = 0;

  private pump(): void {
    while (this.busy < GROUP_WORKERS && this.queue.length > 0) {
      const group: typeof this.queue = [];
      for (let i = 0; i < this.queue.length && group.length < GROUP_MAX;) {
        const q = this.queue[i];
        if (this.inFlight.has(q.msg.run_id)) {
          i++;
          continue;
        }
        this.inFlight.add(q.msg.run_id);
        group.push(q);
        this.queue.splice(i, 1);
      }
      if (group.length === 0) {
        return;
      }
      group.sort((a, b) => (a.msg.run_id < b.msg.run_id ? -1 : 1));
      this.busy++;
      void this.commitGroup(group)
        .then(
          () => group.forEach((q) => q.resolve()),
          (err: unknown) => group.forEach((q) => q.reject(err)),
        )
        .finally(() => {
          this.busy--;
          group.forEach((q) => this.inFlight.delete(q.msg.run_id));
          this.pump();
        });
    }
  }

  private async commitGroup(group: { msg: Delta }[]): Promise<void> {
    const client = await this.pool.connect();
    const after: (() => Promise<void>)[] = [];
    try {
      let begun = false;
      for (const { msg } of group) {
        const nextId = randomUUID();
        const run = this.waiting.get(msg.run_id)!;
        const last = run.left <= 1;
        const json = JSON.stringify(msg.delta);
        const lockSql = `SELECT r.steps, t.version FROM runs r JOIN threads t ON t.id = r.thread_id
          WHERE r.id = ${client.escapeLiteral(msg.run_id)} FOR UPDATE OF r`;
        const locked = begun
          ? ((await client.query(lockSql)) as pg.QueryResult<{ steps: number; version: number }>)
          : (
              (await client.query(`BEGIN; ${lockSql}`)) as unknown as pg.QueryResult<{
                steps: number;
                version: number;
              }>[]
            )[1];
        begun = true;
        const step = locked.rows[0].steps + 1;
        const version = locked.rows[0].version + 1;
        await client.query({
          name: 'floor-step', // a named statement: parsed and planned once per connection
          text: `WITH applied AS (UPDATE tasks SET status = 'applied' WHERE id = $3),
                moved AS (UPDATE threads SET version = $2 WHERE id = $1),
                logged AS (INSERT INTO deltas (thread_id, version, task_id, delta) VALUES ($1, $2, $3, $4)),
                inserted AS (INSERT INTO tasks (id, run_id, step, status) SELECT $5, $1, $6, 'pending' WHERE NOT $7)
           UPDATE runs SET steps = $6 WHERE id = $1`,
          values: [msg.run_id, version, msg.task_id, json, nextId, step, last],
        });
        after.push(async () => {
          await this.redis.xadd(
            eventsKey(msg.run_id),
            '*',
            'type',
            last ? 'done' : 'action',
            'payload',
            json,
          );
          run.left--;
          if (last) {
            this.waiting.delete(msg.run_id);
            run.done();
            return;
          }
          await this.dispatch(msg.run_id, step, version, [msg.delta], nextId);
        });
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
    // After the commit: each step's event and next task, together.
    await Promise.all(after.map((f) => f()));
  }

  private async dispatch(
    runId: string,
    step: number,
    version: number,
    deltas: unknown[],
    taskId: string = randomUUID(),
  ): Promise<void> {
    const task: Task = { run_id: runId, task_id: taskId, step, version, deltas };
    await this.js.publish('floor.task.n', encode(task), { msgID: taskId });
  }
}

async function startInfra(): Promise<{
  nats: ChildProcess;
  natsUrl: string;
  redis: ChildProcess;
  redisUrl: string;
  dir: string;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'sy-floor-'));
  const natsPort = await freePort();
  const nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', dir], {
    stdio: 'ignore',
  });
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const redisPort = await freePort();
  const redis = spawn(
    process.env['REDIS_SERVER_BIN'] ?? 'redis-server',
    ['--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  await waitFor('nats-server', async () => {
    const nc = await connect({ servers: natsUrl, reconnect: false, timeout: 500 });
    await (await nc.jetstreamManager()).getAccountInfo();
    await nc.close();
    return true;
  });
  await waitFor('redis-server', async () => {
    const c = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return (await c.ping()) === 'PONG';
    } finally {
      c.disconnect();
    }
  });
  return { nats, natsUrl, redis, redisUrl, dir };
}

async function main(): Promise<void> {
  const reps = Number(process.env['BENCH_REPS'] ?? 5);
  const sizes = (process.env['BENCH_LOOP_STEPS'] ?? '30,150,600').split(',').map(Number);
  const concurrency = Number(process.env['BENCH_LOOP_CONCURRENCY'] ?? 32);
  const m = machine();
  const loadBefore = loadavg()[0];
  const log = (s: string) => process.stderr.write(`[floor] ${s}\n`);
  log(describeMachine(m, [`load average ${loadBefore.toFixed(2)}`]));

  const infra = await startInfra();
  const db = await ScratchDatabase.create(
    process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    'sy_floor',
  );
  const pool = db.pool(10);
  const children: ChildProcess[] = [];
  try {
    await pool.query(`
      CREATE TABLE threads (id uuid PRIMARY KEY, version integer NOT NULL DEFAULT 0);
      CREATE TABLE runs (id uuid PRIMARY KEY, thread_id uuid NOT NULL REFERENCES threads (id), steps integer NOT NULL);
      CREATE TABLE tasks (id uuid PRIMARY KEY, run_id uuid NOT NULL REFERENCES runs (id), step integer NOT NULL, status text NOT NULL);
      CREATE TABLE deltas (thread_id uuid NOT NULL REFERENCES threads (id), version integer NOT NULL,
                           task_id uuid, delta jsonb NOT NULL, PRIMARY KEY (thread_id, version));`);
    const nc = await connect({ servers: infra.natsUrl });
    const jsm = await nc.jetstreamManager();
    for (const s of [TASKS, DELTAS]) {
      await jsm.streams.add({
        ...s,
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        duplicate_window: 2 * 60 * 1_000_000_000,
      });
    }
    for (const [stream, durable] of [
      [TASKS.name, 'floor-node'],
      [DELTAS.name, 'floor-orchestrator'],
    ]) {
      await jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        ack_wait: 30_000_000_000,
        max_ack_pending: 1000,
      });
    }
    const relayPort = await freePort();
    children.push(
      spawn(process.execPath, [__filename, 'node', infra.natsUrl, infra.redisUrl], { stdio: 'inherit' }),
      spawn(process.execPath, [__filename, 'relay', infra.redisUrl, String(relayPort)], { stdio: 'inherit' }),
    );
    const redis = new Redis(infra.redisUrl);
    const orchestrator = new Orchestrator(nc, nc.jetstream(), pool, redis);
    orchestrator.listen();
    await waitFor('relay', async () => {
      const r = await fetch(`http://127.0.0.1:${relayPort}/`);
      await r.body?.cancel();
      return r.ok;
    });

    const names = new Map<number, string>([
      [process.pid, 'orchestrator'],
      [children[0].pid!, 'node service'],
      [children[1].pid!, 'gateway (SSE relay)'],
      [infra.nats.pid!, 'nats'],
      [infra.redis.pid!, 'redis'],
    ]);
    const meter = new CpuMeter(
      async () => [
        ...names.keys(),
        ...(
          await pool.query<{ pid: number }>(
            'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
          )
        ).rows.map((r) => r.pid),
      ],
      (pid) => names.get(pid) ?? 'postgres',
    );
    /**
     * `runs` runs of `steps` steps at once, each followed by an SSE client (curl, started before
     * the measurement and not counted, as the benchmark's own client is not).
     */
    const measure = async (runs: number, steps: number) => {
      const ids = Array.from({ length: runs }, () => randomUUID());
      const clients = ids.map((id) =>
        spawn('curl', ['-sN', '-o', '/dev/null', `http://127.0.0.1:${relayPort}/?run=${id}`], {
          stdio: 'ignore',
        }),
      );
      const followed = clients.map((c) => new Promise((r) => c.once('exit', r)));
      await new Promise((r) => setTimeout(r, 100 + runs * 5));
      await meter.start();
      const t0 = performance.now();
      await Promise.all(ids.map((id) => orchestrator.run(id, steps)));
      await Promise.all(followed);
      const wall = performance.now() - t0;
      const cpu = await meter.stop();
      return { wall, cpu, steps: runs * steps, by: meter.breakdown };
    };
    // Warm-up: JIT, pools, consumers.
    for (let i = 0; i < 3; i++) {
      await measure(1, 60);
      await measure(concurrency, 10);
    }
    const rows: string[][] = [];
    const bySize = new Map<number, Awaited<ReturnType<typeof measure>>[]>();
    for (const steps of sizes) {
      const samples: Awaited<ReturnType<typeof measure>>[] = [];
      bySize.set(steps, samples);
      for (let r = 0; r < reps; r++) {
        samples.push(await measure(1, steps));
        log(`#${r + 1} ${steps} steps: ${fmtMs(samples[r].wall)}, CPU ${fmtMs(samples[r].cpu)}`);
      }
      rows.push(
        [`${steps} steps: time per step`, fmtMs(median(samples.map((s) => s.wall / s.steps)))],
        [`${steps} steps: CPU per step (all processes)`, fmtMs(median(samples.map((s) => s.cpu / s.steps)))],
      );
    }
    const conc: Awaited<ReturnType<typeof measure>>[] = [];
    for (let r = 0; r < reps; r++) {
      conc.push(await measure(concurrency, 30));
      log(`#${r + 1} ${concurrency} concurrent: ${fmtMs(conc[r].wall)}, CPU ${fmtMs(conc[r].cpu)}`);
    }
    rows.push(
      [
        `${concurrency} concurrent runs (30 steps): throughput`,
        fmtRate(median(conc.map((s) => (s.steps * 1000) / s.wall)), 'steps'),
      ],
      [
        `${concurrency} concurrent runs: CPU per step (all processes)`,
        fmtMs(median(conc.map((s) => s.cpu / s.steps))),
      ],
    );
    const table = markdownTable(['floor of a step (bare clients)', 'measured'], rows);
    const longest = bySize.get(sizes[sizes.length - 1]) ?? [];
    const per = (samples: typeof conc, name: string) =>
      fmtMs(median(samples.map((s) => (s.by.get(name) ?? 0) / s.steps)));
    const byProcess = markdownTable(
      [
        'process',
        `CPU per step, ${sizes[sizes.length - 1]} steps`,
        `CPU per step, ${concurrency} concurrent runs`,
      ],
      [...new Set([...names.values(), 'postgres'])].map((name) => [
        name,
        per(longest, name),
        per(conc, name),
      ]),
    );
    process.stdout.write(`${table}\n\n${byProcess}\n`);
    writeFileSync(
      RESULTS,
      `# The floor of a step on this design\n\nLast run: ${new Date().toISOString()} (\`npm run bench:floor\`).\n\nMachine: ${describeMachine(m, [`1-minute load average before the run ${loadBefore.toFixed(2)}`])}.\n\n${table}\n\nMedians of ${reps} runs per row, after warm-up runs.\n\n${byProcess}\n\nA step here is what a step of the pure-runtime loop sends and commits, done by three bare Node processes (the nats, pg and ioredis clients and nothing else): the orchestrator's part (the delta pulled from JetStream; \`BEGIN\` with the run row locked, one statement logging the ~1 KB delta, moving the thread's version, marking the task applied and inserting the next one, \`COMMIT\` — grouped as the orchestrator groups them: the steps of other runs that arrive while two transactions are busy share one transaction, up to ${GROUP_MAX}; the step's event appended to Redis; the next task, carrying the delta, published with its PubAck; the delta acknowledged), the node's (the task pulled; the start counted and \`node_started\` appended in one Redis script; the ~1 KB delta published with its PubAck; the task acknowledged) and the gateway's (XREAD BLOCK on the run's events, one SSE frame per event). CPU: user+sys from /proc of those three processes, nats-server, redis-server and the Postgres backends of the scratch database. No validation, state, routing, logging or framework: what Switchyard's own steps cost above these rows is its code; these rows are the design's.\n`,
    );
    log(`wrote ${RESULTS}`);
    await nc.close();
    redis.disconnect();
  } finally {
    for (const c of children) {
      c.kill('SIGKILL');
    }
    await pool.end();
    await db.drop();
    infra.nats.kill('SIGKILL');
    infra.redis.kill('SIGKILL');
    rmSync(infra.dir, { recursive: true, force: true });
  }
}

const [role, ...args] = process.argv.slice(2);
const running =
  role === 'node'
    ? nodeRole(args[0], args[1])
    : role === 'relay'
      ? relayRole(args[0], Number(args[1]))
      : main().then(() => process.exit(0));
running.catch((err: Error) => {
  process.stderr.write(`floor benchmark failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
