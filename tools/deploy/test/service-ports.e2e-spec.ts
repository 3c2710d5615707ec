import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_PORTS } from '@switchyard/config';
import { REPO_ROOT, TestStack, freePort, waitFor } from '@switchyard/testing';

// One port rule for the image and a shell: a service listens on its own variable
// (`PLANNER_PORT`, …, the names of deploy/local/env.sh), else on `PORT` (the image sets
// `PORT=8080`), else on its default; a bad value stops it with exit 78 naming the variable.
// Real service processes from dist/ against the stack's NATS, Postgres and Redis.

const OWN_PORTS = Object.values(SERVICE_PORTS).map((p) => p.variable);
const saved = Object.fromEntries(OWN_PORTS.map((v) => [v, process.env[v]]));
let stack: TestStack;

beforeAll(async () => {
  // A developer shell that sourced deploy/local/env.sh: every service's own variable is set to
  // its fixed port. The stack still starts each service on a spare port of its own.
  for (const { variable, fallback } of Object.values(SERVICE_PORTS)) {
    process.env[variable] = String(fallback);
  }
  stack = await TestStack.start({ script: 'apps/gateway/test/fixtures/skeleton.script.json' });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  for (const [v, value] of Object.entries(saved)) {
    if (value === undefined) {
      delete process.env[v];
    } else {
      process.env[v] = value;
    }
  }
});

function start(app: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/apps', app, 'src/main.js')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...stack.serviceEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

const exitOf = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

const listening = (port: number): Promise<boolean> =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.ok,
    () => false,
  );

it('starts every service of a stack on its spare port from a shell that exported deploy/local/env.sh', async () => {
  for (const app of Object.keys(SERVICE_PORTS) as (keyof typeof SERVICE_PORTS)[]) {
    const port = stack.ports.get(app)!;
    expect(port).not.toBe(SERVICE_PORTS[app].fallback);
    expect(await listening(port)).toBe(true);
  }
});

/** Starts `app` with `env`, and once it serves on `port` (or has ended) runs `check`; then stops it. */
async function whileServing(
  app: string,
  env: Record<string, string>,
  port: number,
  check: (output: () => string) => Promise<void>,
): Promise<void> {
  const service = start(app, env);
  try {
    await waitFor(
      `${app} on port ${port}`,
      async () => service.child.exitCode !== null || (await listening(port)),
      60_000,
    );
    expect(service.child.exitCode).toBeNull();
    await check(service.output);
  } finally {
    service.child.kill('SIGTERM');
    await exitOf(service.child);
  }
}

it('listens on its own variable when PORT is set too (as the image sets it)', async () => {
  const [generic, own] = [await freePort(), await freePort()];
  await whileServing(
    'reflection',
    { PORT: String(generic), REFLECTION_PORT: String(own) },
    own,
    async (log) => {
      expect(await listening(generic)).toBe(false);
      await waitFor('its "listening" log line', async () => log().includes(`"port":${own}`));
    },
  );
});

it('listens on PORT when its own variable is not set', async () => {
  const generic = await freePort();
  await whileServing('output', { PORT: String(generic), OUTPUT_PORT: '' }, generic, async (log) => {
    await waitFor('its "listening" log line', async () => log().includes(`"port":${generic}`));
  });
});

it.each([
  ['PLANNER_PORT', 'planner', { PLANNER_PORT: '80x' }, '"80x"'],
  ['PORT', 'gateway', { GATEWAY_PORT: '', PORT: '65536' }, '"65536"'],
])('stops with exit 78 naming %s when it is not a port', async (variable, app, env, shown) => {
  const service = start(app, env);
  expect(await exitOf(service.child)).toBe(78);
  expect(service.output()).toContain(`${app}: invalid configuration`);
  expect(service.output()).toContain(`${variable} (${shown}): must be a TCP port number (1-65535)`);
});
