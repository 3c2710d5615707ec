import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from './free-port';

/** A nats-server with JetStream of its own: spare port, temporary store. */
export class NatsServerProcess {
  private constructor(
    readonly url: string,
    private readonly proc: ChildProcess,
    private readonly dir: string,
    private readonly output: string[],
  ) {}

  static async start(): Promise<NatsServerProcess> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'sy-nats-'));
    const output: string[] = [];
    const proc = spawn(
      process.env['NATS_SERVER_BIN'] ?? 'nats-server',
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc.stdout?.on('data', (b: Buffer) => output.push(b.toString()));
    proc.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
    proc.on('error', (err) => output.push(`spawn error: ${err.message}`));
    const server = new NatsServerProcess(`nats://127.0.0.1:${port}`, proc, dir, output);
    try {
      await server.waitForJetStream();
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  private async waitForJetStream(): Promise<void> {
    const deadline = Date.now() + 10_000;
    let last: unknown;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        break;
      }
      try {
        const nc = await connect({ servers: this.url, reconnect: false, timeout: 1000 });
        try {
          await nc.jetstreamManager();
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

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
      this.proc.kill('SIGTERM');
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
      await within(exited, 5000);
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
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
