// The offline demo's client: starts a run through the gateway and prints its events as they
// stream in, ending with the answer. Usage: node dist/tools/demo/src/main.js "what is 2+3*4?"
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchyardClient } from '@switchyard/client';

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
  const sy = new SwitchyardClient({ baseUrl: gateway, apiKey: key });
  const created = await sy.runs.create({ input: { prompt } });
  out(`${bold('run')} ${created.run_id}  ${dim(`prompt: ${prompt}`)}\n`);
  let streaming = false;
  // The client picks a dropped stream up again where it stopped (Last-Event-ID).
  for await (const e of sy.runs.events(created.run_id, { signal: AbortSignal.timeout(300_000) })) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one printer for every event type
    const p = e.payload as Record<string, any>;
    if (e.event_type === 'token') {
      if (!streaming) {
        out(`  ${dim('output ›')} `);
        streaming = true;
      }
      out(p['text']);
      continue;
    }
    if (streaming) {
      out('\n');
      streaming = false;
    }
    const seq = 'seq' in e ? e.seq : '';
    switch (e.event_type) {
      case 'status':
        out(`${dim(seq)} status    ${bold(p['status'])}\n`);
        break;
      case 'node_started':
        out(`${dim(seq)} started   ${p['node']}${p['attempt'] > 1 ? ` (attempt ${p['attempt']})` : ''}\n`);
        break;
      case 'action':
        out(
          `${dim(seq)} action #${p['id']} ${bold(p['node'])}: ${p['summary']} ${dim(`→ [${p['next'].join(', ')}]  ${p['usage'].total_tokens} tokens`)}\n`,
        );
        break;
      case 'error':
        out(`${dim(seq)} error     ${p['code']}: ${p['message']}\n`);
        break;
      default:
        out(`${dim(seq)} ${e.event_type} ${JSON.stringify(p)}\n`);
    }
  }
  const run = await sy.runs.get(created.run_id);
  out(`\n${bold('status')}: ${run.status}   ${dim(`${run.usage.total_tokens} tokens`)}\n`);
  if (run.output) {
    out(`${bold('answer')}: ${run.output.answer}\n`);
  }
  if (run.status !== 'succeeded') {
    out(`${bold('error')}: ${run.error?.message}\n`);
    process.exitCode = 1;
  }
  // The same run in the console (sign in with the key; it is kept in the browser tab only).
  out(`\n${bold('console')}: ${gateway}/console/#/runs/${created.run_id}   ${dim(`API key: ${key}`)}\n`);
  out(
    `${bold('chat')}: ${gateway}/console/#/chat/${created.thread_id}   ${dim('(the end user’s side: the same thread)')}\n`,
  );
}

main().catch((err: Error) => {
  process.stderr.write(`demo: ${err.message}\n`);
  process.exit(1);
});
