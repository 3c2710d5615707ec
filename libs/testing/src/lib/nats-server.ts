import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from './free-port';

export interface NatsServerOptions {
  /** Client port (a spare one unless given: a restart keeps its node's port). */
  port?: number;
  /** JetStream store (a temporary one, removed on stop, unless given). */
  dir?: string;
  /** More nats-server arguments (a cluster node's name, cluster port and routes). */
  args?: string[];
  /** Appends the server's output to this file (kept in memory otherwise). */
  logFile?: string;
  /**
   * Whether to wait for JetStream to answer (default). A cluster's first node cannot: JetStream
   * answers once a majority of the cluster is up.
   */
  waitForJetStream?: boolean;
}

/** A nats-server with JetStream of its own: spare port, temporary store. */
export class NatsServerProcess {
  private constructor(
    readonly url: string,
    readonly port: number,
    private readonly proc: ChildProcess,
    private readonly dir: string,
    private readonly ownDir: boolean,
    private readonly output: string[],
  ) {}

  static async start(opts: NatsServerOptions = {}): Promise<NatsServerProcess> {
    const port = opts.port ?? (await freePort());
    const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'sy-nats-'));
    const output: string[] = [];
    const proc = spawn(
      process.env['NATS_SERVER_BIN'] ?? 'nats-server',
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, ...(opts.args ?? [])],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const log = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
    const keep = (b: Buffer | string) => {
      log?.write(b);
      output.push(b.toString());
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    proc.on('error', (err) => keep(`spawn error: ${err.message}\n`));
    proc.on('exit', () => log?.end());
    const server = new NatsServerProcess(`nats://127.0.0.1:${port}`, port, proc, dir, !opts.dir, output);
    try {
      await server.waitUntilListening(opts.waitForJetStream ?? true);
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** A signal to the server (SIGKILL: a crash; the store stays for a restart). */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) {
      const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
      this.proc.kill(signal);
      await within(exited, 5000);
    }
  }

  private async waitUntilListening(jetStream: boolean): Promise<void> {
    const deadline = Date.now() + 10_000;
    let last: unknown;
    while (Date.now() < deadline) {
      if (!this.running) {
        break;
      }
      try {
        const nc = await connect({ servers: this.url, reconnect: false, timeout: 1000 });
        try {
          if (jetStream) {
            await nc.jetstreamManager();
          }
          return;
        } finally {
          await nc.close();
        }
      } catch (err) {
        last = err;
        await sleep(100);
      }
    }
    throw new Error(`nats-server did not start JetStream (${String(last)}):\n${this.output.join('')}`);
  }

  /** Stops the server (SIGTERM); removes its store unless the caller gave it. */
  async stop(): Promise<void> {
    if (this.running) {
      const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
      await within(exited, 5000);
      clearTimeout(timer);
    }
    if (this.ownDir) {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits for `promise`, at most `ms` (cleanup must never hang jest, nor leave a timer behind). */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
