import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import pg from 'pg';
import { connect } from 'nats';
import { SERVICE_PORTS } from '@switchyard/config';
import { freePort, waitFor } from './free-port';
import { NatsCluster } from './nats-cluster';
import { REPO_ROOT as ROOT } from './repo-root';

export const SERVICE_APPS = [
  'run-orchestrator',
  'planner',
  'tool-executor',
  'reflection',
  'retrieval',
  'output',
  'gateway',
] as const;
export type ServiceApp = (typeof SERVICE_APPS)[number];
/** A process: a service app, `<app>-<n>` for its n-th replica, the model server, or NATS. */
type ProcName = ServiceApp | `${ServiceApp}-${number}` | 'scripted-llm' | 'nats' | 'redis';

export interface TestStackOptions {
  /** Path (from the repo root) of the scripted model server's script. */
  script: string;
  env?: Record<string, string>;
  /** Node.js flags for the services (`--cpu-prof` and the like, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  /**
   * How a service is started, when not `node dist/apps/<app>/src/main.js` from the repo (the
   * image test starts each from the image's file layout, through the Dockerfile's own command).
   */
  launch?: (app: ServiceApp) => ServiceLaunch;
  /** Postgres connections of every service (SWITCHYARD_DB_POOL_SIZE); unset: each service's own. */
  dbPoolSize?: number;
  /**
   * A JetStream cluster of this many nats-servers instead of one server (`natsCluster`); the
   * services get every node's URL. Their streams' replicas: SWITCHYARD_NATS_REPLICAS in `env`.
   */
  natsClusterSize?: number;
}

export interface ServiceLaunch {
  cmd: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

/**
 * The whole system as separate real processes for end-to-end tests: a NATS server with
 * JetStream and a Redis server of their own (spare ports, so tests never share streams or keys
 * with a dev stack and may FLUSHALL), a fresh Postgres database, the scripted model server, and
 * the seven services started from dist/.
 */
export class TestStack {
  readonly key = `sy_test_${randomBytes(16).toString('hex')}`;
  readonly ports = new Map<ProcName, number>();
  private readonly procs = new Map<ProcName, ChildProcess>();
  private readonly id = `${process.pid}_${randomBytes(3).toString('hex')}`;
  readonly dir = join(ROOT, 'tmp', 'e2e', this.id);
  readonly databaseUrl: string;
  redisUrl = '';
  /** The NATS server's URL (a cluster's: every node's, comma-separated). */
  natsUrl = '';
  /** The JetStream cluster, with `natsClusterSize`. */
  natsCluster?: NatsCluster;
  private env: Record<string, string> = {};

  private constructor(private readonly opts: TestStackOptions) {
    const base = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/switchyard');
    base.pathname = `/switchyard_e2e_${this.id}`;
    this.databaseUrl = base.toString();
  }

  static async start(opts: TestStackOptions): Promise<TestStack> {
    const stack = new TestStack(opts);
    try {
      await stack.boot();
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.ports.get('gateway')}`;
  }

  get llmUrl(): string {
    return `http://127.0.0.1:${this.ports.get('scripted-llm')}`;
  }

  /**
   * Replaces the scripted model server's script (an object, or a script file's text) and clears
   * its request log; throws when the server refuses the script.
   */
  async putScript(script: unknown): Promise<void> {
    const res = await fetch(`${this.llmUrl}/_script`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: typeof script === 'string' ? script : JSON.stringify(script),
    });
    if (res.status !== 200) {
      throw new Error(`the scripted model server refused the script: ${res.status} ${await res.text()}`);
    }
    await this.clearModelRequests();
  }

  /** Forgets the scripted model server's request log. */
  async clearModelRequests(): Promise<void> {
    await fetch(`${this.llmUrl}/_requests`, { method: 'DELETE' });
  }

  /** The names of the script's rules that answered the logged model requests, in order. */
  async modelRulesUsed(): Promise<string[]> {
    const res = await fetch(`${this.llmUrl}/_requests`);
    return ((await res.json()) as { rule: string | null }[]).map((r) => r.rule ?? '(none)');
  }

  /** Authorised JSON request to the gateway. */
  async api(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.gatewayUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${this.key}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  }

  /**
   * Waits for the run to end (succeeded, failed or cancelled) and answers GET /v1/runs/:id then
   * (`headers`: another tenant's key, say).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON the gateway answered
  async ended(runId: string, timeoutMs = 60_000, headers: Record<string, string> = {}): Promise<any> {
    let run: { status?: string } = {};
    await waitFor(
      `run ${runId} to end`,
      async () => {
        run = (await this.api('GET', `/v1/runs/${runId}`, undefined, headers)).body;
        return ['succeeded', 'failed', 'cancelled'].includes(run.status ?? '');
      },
      timeoutMs,
    );
    return run;
  }

  /** A tenant of its own with a gateway API key, made through the admin API (needs its token). */
  async newTenant(name: string, adminToken: string): Promise<{ id: string; key: string }> {
    const admin = { Authorization: `Bearer ${adminToken}` };
    const t = await this.api('POST', '/v1/admin/tenants', { name }, admin);
    const k = t.status === 201 ? await this.api('POST', `/v1/admin/tenants/${t.body.id}/keys`, {}, admin) : t;
    if (k.status !== 201) {
      throw new Error(`tenant "${name}" could not be made: HTTP ${k.status} ${JSON.stringify(k.body)}`);
    }
    return { id: t.body.id as string, key: k.body.key as string };
  }

  log(name: ProcName): string {
    const f = join(this.dir, `${name}.log`);
    return existsSync(f) ? readFileSync(f, 'utf8') : '';
  }

  /** The environment the services get (URLs of the stack's NATS, Redis, database, model server). */
  get serviceEnv(): Readonly<Record<string, string>> {
    return this.env;
  }

  /** The OS process id of a process of the stack (for memory readings). */
  pid(name: ProcName): number | undefined {
    return this.procs.get(name)?.pid;
  }

  /** How a process of the stack ended (waits for it): its exit code, or the signal that killed it. */
  async exited(name: ProcName): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.procs.get(name);
    if (!child) {
      throw new Error(`no process ${name} in the stack`);
    }
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((r) => child.once('exit', r));
    }
    return { code: child.exitCode, signal: child.signalCode };
  }

  /** `kill -9` (or another signal) to one service process. */
  kill(name: ProcName, signal: NodeJS.Signals = 'SIGKILL'): void {
    this.procs.get(name)?.kill(signal);
  }

  async restart(name: ServiceApp, replica = 1): Promise<void> {
    await this.stopProc(replica > 1 ? `${name}-${replica}` : name);
    await this.startService(name, replica);
  }

  /** Stops one service (SIGTERM, graceful) until `startService`. */
  async stopService(name: ServiceApp, replica = 1): Promise<void> {
    await this.stopProc(replica > 1 ? `${name}-${replica}` : name);
  }

  /** Stops the NATS server and starts it again on the same port and store (JetStream keeps its data). */
  async restartNats(downMs = 500): Promise<void> {
    if (this.natsCluster) {
      throw new Error('a NATS cluster restarts node by node: stack.natsCluster.kill / startNode');
    }
    await this.stopProc('nats');
    await new Promise((r) => setTimeout(r, downMs));
    await this.startNats();
  }

  /** A command to the stack's own Redis (e.g. FLUSHALL). */
  async redis(...args: [string, ...(string | number)[]]): Promise<unknown> {
    const client = new Redis(this.redisUrl, { maxRetriesPerRequest: 1 });
    try {
      return await client.call(...args);
    } finally {
      client.disconnect();
    }
  }

  /** A query against the stack's own database. */
  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    const services = [...this.procs.keys()].filter((n) => n !== 'scripted-llm' && n !== 'nats');
    for (const name of services.reverse()) {
      await this.stopProc(name);
    }
    await this.stopProc('scripted-llm');
    await this.stopProc('nats');
    await this.natsCluster?.stop();
    await this.stopProc('redis');
    if (!process.env['KEEP_E2E_LOGS']) {
      rmSync(join(this.dir, 'nats-store'), { recursive: true, force: true });
      rmSync(join(this.dir, 'nats-cluster'), { recursive: true, force: true });
    }
    const admin = new URL(this.databaseUrl);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect().catch(() => undefined);
    await client
      .query(`DROP DATABASE IF EXISTS "switchyard_e2e_${this.id}" WITH (FORCE)`)
      .catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  private async boot(): Promise<void> {
    for (const app of SERVICE_APPS) {
      if (!existsSync(join(ROOT, 'dist', 'apps', app, 'src', 'main.js'))) {
        throw new Error(`dist/apps/${app} is missing: build first (npm run build)`);
      }
    }
    mkdirSync(this.dir, { recursive: true });
    if (this.opts.natsClusterSize) {
      this.natsCluster = await NatsCluster.start({
        size: this.opts.natsClusterSize,
        dir: join(this.dir, 'nats-cluster'),
        logDir: this.dir,
      });
      this.natsUrl = this.natsCluster.urls;
    } else {
      const natsPort = await freePort();
      this.ports.set('nats', natsPort);
      this.natsUrl = `nats://127.0.0.1:${natsPort}`;
      await this.startNats();
    }
    const redisPort = await freePort();
    this.ports.set('redis', redisPort);
    this.redisUrl = `redis://127.0.0.1:${redisPort}`;
    this.spawn('redis', process.env['REDIS_SERVER_BIN'] ?? 'redis-server', [
      '--bind',
      '127.0.0.1',
      '--port',
      String(redisPort),
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    await waitFor('redis-server', async () => {
      const client = new Redis(this.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined); // refused until the server listens
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } finally {
        client.disconnect();
      }
    });

    const llmPort = await freePort();
    this.ports.set('scripted-llm', llmPort);
    this.spawn('scripted-llm', process.execPath, [join(ROOT, 'dist/tools/scripted-llm/src/main.js')], {
      SCRIPTED_LLM_PORT: String(llmPort),
      SCRIPTED_LLM_SCRIPT: join(ROOT, this.opts.script),
    });
    await waitFor('scripted model server', async () => (await fetch(`${this.llmUrl}/v1/models`)).ok);

    this.env = {
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      NATS_URL: this.natsUrl,
      SWITCHYARD_BOOTSTRAP_KEY: this.key,
      SWITCHYARD_LLM_BASE_URL: `${this.llmUrl}/v1`,
      SWITCHYARD_LLM_API_KEY: 'scripted',
      SWITCHYARD_LLM_MODEL: 'scripted',
      SWITCHYARD_LLM_MAX_RETRIES: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      // Tests poll runs and streams hard (a slow machine polls more): the rate limit is tested
      // where a spec sets its own, never tripped by polling elsewhere.
      SWITCHYARD_RATE_LIMIT_PER_SECOND: '2000',
      SWITCHYARD_RATE_LIMIT_BURST: '10000',
      ...(this.opts.dbPoolSize ? { SWITCHYARD_DB_POOL_SIZE: String(this.opts.dbPoolSize) } : {}),
      ...this.opts.env,
    };
    const client = new pg.Client({ connectionString: new URL('/postgres', this.databaseUrl).toString() });
    await client.connect();
    await client.query(`CREATE DATABASE "switchyard_e2e_${this.id}"`);
    await client.end();

    // The orchestrator applies the migrations; everyone else starts once it is ready.
    await this.startService('run-orchestrator');
    await Promise.all(SERVICE_APPS.filter((a) => a !== 'run-orchestrator').map((a) => this.startService(a)));
  }

  private async startNats(): Promise<void> {
    this.spawn('nats', process.env['NATS_SERVER_BIN'] ?? 'nats-server', [
      '-a',
      '127.0.0.1',
      '-p',
      String(this.ports.get('nats')),
      '-js',
      '-sd',
      join(this.dir, 'nats-store'),
    ]);
    await waitFor('nats-server with JetStream', async () => {
      const nc = await connect({ servers: this.natsUrl, reconnect: false });
      try {
        await (await nc.jetstreamManager()).getAccountInfo();
        return true;
      } finally {
        await nc.close();
      }
    });
  }

  /** Starts a service (again), or with `replica` > 1 one more replica of it (`<app>-<replica>`). */
  async startService(app: ServiceApp, replica = 1): Promise<void> {
    const name: ProcName = replica > 1 ? `${app}-${replica}` : app;
    for (let tries = 1; ; tries++) {
      // A restart keeps its port (clients hold its URL); a first start takes a free one.
      const fresh = !this.ports.has(name);
      const port = this.ports.get(name) ?? (await freePort());
      this.ports.set(name, port);
      const launch: ServiceLaunch = this.opts.launch?.(app) ?? {
        cmd: process.execPath,
        args: [
          '--enable-source-maps',
          ...(this.opts.nodeArgs ?? []),
          join(ROOT, 'dist/apps', app, 'src/main.js'),
        ],
        cwd: ROOT,
      };
      const child = this.spawn(
        name,
        launch.cmd,
        launch.args,
        // The service's own variable: it comes before PORT (which the image sets, and a shell may
        // too), and a shell that exported deploy/local/env.sh has set it to a fixed port.
        { ...this.env, ...launch.env, [SERVICE_PORTS[app].variable]: String(port) },
        launch.cwd,
      );
      const exited = () => child.exitCode !== null || child.signalCode !== null;
      await waitFor(
        `${name} /readyz (log: ${join(this.dir, `${name}.log`)})`,
        async () => exited() || (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
        60_000,
      );
      if (!exited()) {
        return;
      }
      const log = this.log(name).slice(-2000);
      // freePort's port was free when it looked; another process (a parallel spec's service)
      // may have taken it before this one listened: take another.
      if (fresh && tries < 3 && log.includes('EADDRINUSE')) {
        this.ports.delete(name);
        continue;
      }
      throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode}:\n${log}`);
    }
  }

  private spawn(
    name: ProcName,
    cmd: string,
    args: string[],
    env: Record<string, string> = {},
    cwd = ROOT,
  ): ChildProcess {
    const out = createWriteStream(join(this.dir, `${name}.log`), { flags: 'a' });
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.procs.set(name, child);
    return child;
  }

  private async stopProc(name: ProcName): Promise<void> {
    const child = this.procs.get(name);
    this.procs.delete(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
