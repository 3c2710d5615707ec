// The offline demo's client: starts a run through the gateway and prints its events as they
// stream in, ending with the answer. Usage: node dist/tools/demo/src/main.js "what is 2+3*4?"
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@switchyard/contracts';
import { readSse } from '@switchyard/testing';

/**
 * The local stack's settings as the scripts see them: deploy/local/env.sh sourced over this
 * environment (anything already set wins there too), so the demo works from a new shell with the
 * same gateway port and key the stack was started with, and nothing is defined twice.
 */
function localEnv(): NodeJS.ProcessEnv {
  const envSh = join(__dirname, '../../../../deploy/local/env.sh');
  if (!existsSync(envSh)) {
    return process.env;
  }
  const dump = execFileSync('bash', ['-c', '. "$1" && env -0', 'env', envSh], { encoding: 'utf8' });
  return Object.fromEntries(
    dump
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

const env = localEnv();
const gateway = env['SWITCHYARD_GATEWAY_URL'] ?? `http://127.0.0.1:${env['GATEWAY_PORT'] ?? 8080}`;
const key = env['SWITCHYARD_API_KEY'] ?? env['SWITCHYARD_BOOTSTRAP_KEY'] ?? '';
const prompt = process.argv.slice(2).join(' ') || 'what is 2+3*4?';
const out = (s: string) => process.stdout.write(s);
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

async function main(): Promise<void> {
  const res = await fetch(`${gateway}/v1/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ input: { prompt } }),
  });
  const created = (await res.json()) as { run_id?: string; error?: { message: string } };
  if (!res.ok || !created.run_id) {
    throw new Error(
      `POST /v1/runs answered ${res.status}: ${created.error?.message ?? JSON.stringify(created)}`,
    );
  }
  out(`${bold('run')} ${created.run_id}  ${dim(`prompt: ${prompt}`)}\n`);
  let streaming = false;
  await readSse(`${gateway}/v1/runs/${created.run_id}/events`, {
    headers: { Authorization: `Bearer ${key}` },
    timeoutMs: 300_000,
    onFrame: (frame) => {
      const e = JSON.parse(frame.data) as RunEvent;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one printer for every event type
      const p = e.payload as Record<string, any>;
      if (e.event_type === 'token') {
        if (!streaming) {
          out(`  ${dim('output ›')} `);
          streaming = true;
        }
        out(p['text']);
        return;
      }
      if (streaming) {
        out('\n');
        streaming = false;
      }
      switch (e.event_type) {
        case 'status':
          out(`${dim(e.seq)} status    ${bold(p['status'])}\n`);
          break;
        case 'node_started':
          out(
            `${dim(e.seq)} started   ${p['node']}${p['attempt'] > 1 ? ` (attempt ${p['attempt']})` : ''}\n`,
          );
          break;
        case 'action':
          out(
            `${dim(e.seq)} action #${p['id']} ${bold(p['node'])}: ${p['summary']} ${dim(`→ [${p['next'].join(', ')}]  ${p['usage'].total_tokens} tokens`)}\n`,
          );
          break;
        case 'error':
          out(`${dim(e.seq)} error     ${p['code']}: ${p['message']}\n`);
          break;
        default:
          out(`${dim(e.seq)} ${e.event_type} ${JSON.stringify(p)}\n`);
      }
    },
  });
  const run = (await (
    await fetch(`${gateway}/v1/runs/${created.run_id}`, { headers: { Authorization: `Bearer ${key}` } })
  ).json()) as {
    status: string;
    output?: { answer: string };
    error?: { message: string };
    usage: { total_tokens: number };
  };
  out(`\n${bold('status')}: ${run.status}   ${dim(`${run.usage.total_tokens} tokens`)}\n`);
  if (run.output) {
    out(`${bold('answer')}: ${run.output.answer}\n`);
  }
  if (run.status !== 'succeeded') {
    out(`${bold('error')}: ${run.error?.message}\n`);
    process.exitCode = 1;
  }
}

main().catch((err: Error) => {
  process.stderr.write(`demo: ${err.message}\n`);
  process.exit(1);
});
