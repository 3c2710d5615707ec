import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatIssues, ScriptSchema, type Script } from './script.schema';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.server';

// CLI entry: SCRIPTED_LLM_SCRIPT (required), SCRIPTED_LLM_PORT (8090), SCRIPTED_LLM_HOST (127.0.0.1).
// Logs are JSON lines, like the services' pino output, so the demo can tail them together.

class StartupError extends Error {}

function log(level: 'info' | 'fatal', msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({
    level,
    time: new Date().toISOString(),
    name: 'scripted-llm',
    msg,
    ...fields,
  });
  (level === 'fatal' ? process.stderr : process.stdout).write(`${line}\n`);
}

interface Config {
  port: number;
  host: string;
  scriptPath: string;
  script: Script;
}

function loadConfig(env: NodeJS.ProcessEnv): Config {
  const rawPort = env.SCRIPTED_LLM_PORT || '8090';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) {
    throw new StartupError(`SCRIPTED_LLM_PORT must be a port number 0-65535, got "${rawPort}"`);
  }
  const host = env.SCRIPTED_LLM_HOST || '127.0.0.1';
  const scriptPath = env.SCRIPTED_LLM_SCRIPT;
  if (!scriptPath) {
    throw new StartupError(
      'SCRIPTED_LLM_SCRIPT is required: set it to the path of a script JSON file, e.g. tools/scripted-llm/scripts/demo.json',
    );
  }
  const where = `SCRIPTED_LLM_SCRIPT=${scriptPath}`;
  let text: string;
  try {
    text = readFileSync(resolve(scriptPath), 'utf8');
  } catch (e) {
    throw new StartupError(`${where}: cannot read the script file: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new StartupError(`${where}: the script file is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = ScriptSchema.safeParse(raw);
  if (!parsed.success) {
    throw new StartupError(`${where}: invalid script: ${formatIssues(parsed.error.issues)}`);
  }
  return { port, host, scriptPath, script: parsed.data };
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  let server: ScriptedLlm;
  try {
    server = await startScriptedLlm({
      port: config.port,
      host: config.host,
      script: config.script,
      onRequest: (record) => log('info', 'request', { ...record }),
    });
  } catch (e) {
    throw new StartupError(
      `cannot listen on ${config.host}:${config.port} (SCRIPTED_LLM_HOST/SCRIPTED_LLM_PORT): ${(e as Error).message}`,
    );
  }
  log('info', 'scripted-llm listening', {
    url: server.url,
    port: server.port,
    script: config.scriptPath,
    rules: config.script.rules.map((r) => r.name),
  });

  const stop = (signal: NodeJS.Signals): void => {
    log('info', 'scripted-llm stopping', { signal });
    server.close().then(
      () => {
        log('info', 'scripted-llm stopped');
        process.exit(0);
      },
      (e: unknown) => {
        log('fatal', `scripted-llm failed to stop cleanly: ${String(e)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((e: unknown) => {
  log('fatal', e instanceof StartupError ? e.message : `scripted-llm failed to start: ${String(e)}`);
  process.exitCode = 1;
});
