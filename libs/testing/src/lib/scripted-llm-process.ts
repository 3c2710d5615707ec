import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from './free-port';
import { REPO_ROOT as ROOT } from './repo-root';

export interface ScriptedRequest {
  rule: string | null;
  aborted: boolean;
  status?: number;
  /** SHA-256 prefix of the request's API key (SecretBox.fingerprint), null without one. */
  api_key_fingerprint?: string | null;
  path?: string;
  /** How the request asked for JSON natively (json_schema, json_object, tool, format, output_format), or null. */
  native_json?: string | null;
  /** The JSON Schema the request sent natively, and OpenAI's `strict` flag for it. */
  native_schema?: unknown;
  native_strict?: boolean | null;
  /** Whether the server answered it in strict mode. */
  strict?: boolean;
  /** The request's system prompt (first 4000 characters). */
  system?: string;
}

/** The scripted model server (tools/scripted-llm, built in dist/) as a process of its own. */
export class ScriptedLlmProcess {
  private constructor(
    readonly url: string,
    private readonly proc: ChildProcess,
    private readonly dir: string,
  ) {}

  /** `url` is the OpenAI base URL (`http://127.0.0.1:<port>/v1`). */
  static async start(script: unknown): Promise<ScriptedLlmProcess> {
    const main = join(ROOT, 'dist/tools/scripted-llm/src/main.js');
    if (!existsSync(main)) {
      throw new Error('dist/tools/scripted-llm is missing: build first (npm run build)');
    }
    const dir = mkdtempSync(join(tmpdir(), 'sy-scripted-'));
    writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
    const port = await freePort();
    const proc = spawn(process.execPath, [main], {
      env: { ...process.env, SCRIPTED_LLM_PORT: String(port), SCRIPTED_LLM_SCRIPT: join(dir, 'script.json') },
      stdio: 'ignore',
    });
    const server = new ScriptedLlmProcess(`http://127.0.0.1:${port}/v1`, proc, dir);
    await waitFor('the scripted model server', async () => (await fetch(`${server.url}/models`)).ok, 10_000);
    return server;
  }

  async requests(): Promise<ScriptedRequest[]> {
    return (await (await fetch(this.url.replace(/\/v1$/, '/_requests'))).json()) as ScriptedRequest[];
  }

  /** Replaces the server's script (PUT /_script); rule counters start again. */
  async setScript(script: unknown): Promise<void> {
    const res = await fetch(this.url.replace(/\/v1$/, '/_script'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(script),
    });
    if (!res.ok) {
      throw new Error(`scripted model server refused the script: ${await res.text()}`);
    }
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
      this.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
