import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './repo-root';

/**
 * A real Postgres engine with the real pgvector extension, for the code paths that need pgvector
 * where the machine's Postgres has none (Debian 12 does not package it): PGlite — Postgres
 * compiled to WebAssembly — with its pgvector build, served over the Postgres wire protocol by a
 * child process (`tools/pgvector-server/server.mjs`), so `pg` and TypeORM talk to it like to any
 * server. One engine session serves every connection: keep pools small and statements sequential.
 */
export class PgvectorServer {
  private constructor(
    readonly url: string,
    private readonly proc: ChildProcess,
  ) {}

  static async start(timeoutMs = 30_000): Promise<PgvectorServer> {
    const script = join(REPO_ROOT, 'tools/pgvector-server/server.mjs');
    const proc = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const errors: string[] = [];
    proc.stderr?.on('data', (b: Buffer) => errors.push(b.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pgvector server not up after ${timeoutMs} ms`)),
        timeoutMs,
      );
      const lines = createInterface({ input: proc.stdout! });
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`pgvector server exited (${code}): ${errors.join('')}`));
      });
    });
    return new PgvectorServer(`postgres://postgres@127.0.0.1:${port}/postgres`, proc);
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
      return;
    }
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
