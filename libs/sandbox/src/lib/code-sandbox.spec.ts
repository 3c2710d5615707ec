import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeSandbox } from './code-sandbox';
import { sandboxConfigFromEnv } from './sandbox.config';
import type { RunCodeRequest, RunCodeResult } from './sandbox.types';

// Real child processes, real QuickJS and Pyodide, real confinement (the tests run as root, as CI
// does). Pyodide takes seconds to start on a busy machine, hence the long timeouts.
jest.setTimeout(240_000);

const sandbox = new CodeSandbox({
  timeoutMs: 2000,
  memoryMb: 64,
  maxConcurrency: 2,
  startTimeoutMs: 120_000,
  maxOutputBytes: 10_000,
  dir: tmpdir(),
});

const js = (code: string, extra: Partial<RunCodeRequest> = {}) =>
  sandbox.run({ language: 'javascript', code, timeoutMs: 5000, memoryMb: 32, ...extra });
const py = (code: string, extra: Partial<RunCodeRequest> = {}) =>
  sandbox.run({ language: 'python', code, timeoutMs: 10_000, memoryMb: 64, ...extra });

function failed(r: RunCodeResult) {
  if (r.ok) {
    throw new Error(`expected a failure, got ${JSON.stringify(r)}`);
  }
  return r;
}

/** After a failure the sandbox (and this process) still serves a job. */
async function stillServes(language: 'javascript' | 'python'): Promise<void> {
  const r =
    language === 'javascript'
      ? await js('function main(a) { return a.n + 1 }', { args: { n: 1 } })
      : await py('def main(n):\n    return n + 1\n', { args: { n: 1 } });
  expect(r).toEqual({ ok: true, result: 2, stdout: '', stderr: '' });
}

describe(`${CodeSandbox.name}: JavaScript (QuickJS)`, () => {
  it('calls main(args) and returns its value with the console output', async () => {
    const r = await js(
      'function main(args) { console.log("sum", args.a + args.b); console.error("careful"); return { sum: args.a + args.b, list: [1, "x", null] } }',
      { args: { a: 2, b: 3 } },
    );
    expect(r).toEqual({
      ok: true,
      result: { sum: 5, list: [1, 'x', null] },
      stdout: 'sum 5\n',
      stderr: 'careful\n',
    });
  });

  it('takes an exported async main (module.exports), as RAGFlow does', async () => {
    const r = await js(
      'async function main(a) { await null; return a.s.toUpperCase() }\nmodule.exports = { main };',
      {
        args: { s: 'ok' },
      },
    );
    expect(r).toMatchObject({ ok: true, result: 'OK' });
  });

  it('reports a syntax error with its line, and a runtime error with its stack', async () => {
    const syntax = failed(await js('function main() {\n  return {;\n}'));
    expect(syntax.failure).toBe('code_error');
    expect(syntax.message).toMatch(/^SyntaxError/);
    expect(syntax.traceback).toContain('main.js:2');
    const runtime = failed(await js('function main() {\n  console.log("before");\n  return null.x;\n}'));
    expect(runtime).toMatchObject({ failure: 'code_error', stdout: 'before\n' });
    expect(runtime.message).toMatch(/^TypeError: cannot read property 'x' of null/);
    expect(runtime.traceback).toContain('main.js:3');
    await stillServes('javascript');
  });

  it('says what is wrong when main is missing or returns nothing', async () => {
    expect(failed(await js('const x = 1;')).message).toBe('Error: main() must be defined or exported.');
    expect(failed(await js('function main() {}')).message).toBe(
      'Error: main() must return a value. Use null for an empty result.',
    );
    await stillServes('javascript');
  });

  it('stops an endless loop at its time limit, even one that catches the interrupt', async () => {
    const started = Date.now();
    const r = failed(
      await js('function main() { for (;;) { try { for (;;) {} } catch (e) {} } }', { timeoutMs: 500 }),
    );
    expect(r.failure).toBe('timeout');
    expect(r.message).toContain('500 ms');
    // Bounded loosely: the child's start-up is in this time too, and the machine may be busy.
    expect(Date.now() - started).toBeLessThan(15_000);
    await stillServes('javascript');
  });

  it('stops a huge allocation at its memory limit', async () => {
    const r = failed(
      // A generous time limit: the memory limit must be what stops it, even on a busy machine.
      await js('function main() { const a = []; for (;;) a.push({ n: a.length }); }', {
        memoryMb: 16,
        timeoutMs: 60_000,
      }),
    );
    expect(r.failure).toBe('memory_limit');
    expect(r.message).toContain('16 MB');
    const big = failed(await js('function main() { return "x".repeat(1e9).length }', { memoryMb: 16 }));
    expect(big.failure).toBe('memory_limit');
    await stillServes('javascript');
  });

  it('has no process, require, fs or network, also through constructor tricks', async () => {
    const r = await js(`function main() {
      const g = (function () {}).constructor('return this')();
      const viaCtor = ({}).constructor.constructor('return typeof process')();
      let req;
      try { require('fs').readFileSync('/etc/passwd'); req = 'read'; } catch (e) { req = e.message; }
      return { process: typeof g.process, viaCtor, fetch: typeof fetch, xhr: typeof XMLHttpRequest,
               timers: typeof setTimeout, req, globals: Object.getOwnPropertyNames(g).filter((k) => /^[a-z]/.test(k)).sort() };
    }`);
    expect(r).toMatchObject({
      ok: true,
      result: {
        process: 'undefined',
        viaCtor: 'undefined',
        fetch: 'undefined',
        xhr: 'undefined',
        timers: 'undefined',
        req: 'require("fs") is not available in the sandbox',
      },
    });
    // Only the language's own globals and the wrapper's: nothing of the host.
    expect((r as { result: { globals: string[] } }).result.globals).toEqual(
      expect.not.arrayContaining(['process', 'require', 'fetch', 'setTimeout', 'Buffer', 'global']),
    );
  });

  it('cuts what the code prints at the output limit and says so', async () => {
    const r = await js('function main() { for (let i = 0; i < 5000; i++) console.log("line", i); return 1 }');
    expect(r).toMatchObject({ ok: true, result: 1 });
    expect(r.stdout.length).toBeLessThanOrEqual(10_000);
    expect(r.stderr).toContain('[output cut at 10000 characters]');
  });

  it('refuses a bad request with a message naming the field', async () => {
    await expect(
      sandbox.run({ language: 'ruby' as never, code: 'x', timeoutMs: 100, memoryMb: 16 }),
    ).rejects.toThrow(/language/);
    await expect(js('function main() { return 1 }', { grants: { readDirs: ['/etc'] } })).rejects.toThrow(
      /python only/,
    );
  });
});

describe(`${CodeSandbox.name}: Python (Pyodide in a confined child)`, () => {
  beforeAll(() => {
    // Root, util-linux and a memory cgroup are what the tests and CI have: a machine without
    // them must fail here rather than pass without the confinement under test.
    expect(sandbox.pythonConfinement()).toMatchObject({ available: true });
  });

  it('calls main(**args) and returns its value with what it printed', async () => {
    const r = await py(
      'import sys\n\ndef main(x, name):\n    print("hello", name)\n    sys.stderr.write("warn\\n")\n    return {"double": x * 2, "items": [1, 2.5, None, True]}\n',
      { args: { x: 21, name: 'sandbox' } },
    );
    expect(r).toEqual({
      ok: true,
      result: { double: 42, items: [1, 2.5, null, true] },
      stdout: 'hello sandbox\n',
      stderr: 'warn\n',
    });
  });

  it('reports a syntax error and a runtime error with the traceback of the code', async () => {
    const syntax = failed(await py('def main(:\n    pass\n'));
    expect(syntax.failure).toBe('code_error');
    expect(syntax.message).toMatch(/^SyntaxError/);
    expect(syntax.traceback).toContain('File "<code>", line 1');
    const runtime = failed(await py('def main():\n    print("before")\n    return 1 / 0\n'));
    expect(runtime).toMatchObject({ failure: 'code_error', message: 'ZeroDivisionError: division by zero' });
    expect(runtime.stdout).toBe('before\n');
    expect(runtime.traceback).toContain('File "<code>", line 3, in main');
    expect(runtime.traceback).not.toContain('__sandbox_run');
    await stillServes('python');
  });

  it('stops an endless loop at its time limit', async () => {
    const started = Date.now();
    const r = failed(await py('def main():\n    while True:\n        pass\n', { timeoutMs: 1500 }));
    expect(r).toMatchObject({ failure: 'timeout', message: 'the code ran past its 1500 ms limit' });
    // Start-up is not counted in the limit, so bound only the kill after the code started.
    expect(Date.now() - started).toBeLessThan(120_000);
    await stillServes('python');
  });

  it('stops a growing allocation with the memory cgroup, and a huge one inside the interpreter', async () => {
    const growing = failed(
      await py('def main():\n    a = []\n    while True:\n        a.append(bytearray(1 << 20))\n', {
        memoryMb: 64,
        timeoutMs: 60_000,
      }),
    );
    expect(growing).toMatchObject({
      failure: 'memory_limit',
      message: 'the code used more than its 64 MB limit',
    });
    const huge = failed(await py('def main():\n    return len(bytearray((1 << 31) - 1))\n'));
    expect(huge.failure).toBe('memory_limit');
    await stillServes('python');
  });

  it('has no file system: open() and the FFI escape to the host both fail', async () => {
    process.env['SANDBOX_SPEC_SECRET'] = 'must-not-leak';
    const r = await py(
      `
import pyodide.ffi

def attempt(f):
    try:
        return "ALLOWED: " + str(f())
    except BaseException as e:
        return type(e).__name__ + ": " + str(e)

def main(parent):
    host = pyodide.ffi.to_js({}).constructor.constructor("return process")()
    req = host.mainModule.require
    return {
        "open": attempt(lambda: open("/etc/passwd").read()),
        "escape_read": attempt(lambda: req("fs").readFileSync("/etc/passwd", "utf8")),
        "escape_write": attempt(lambda: req("fs").writeFileSync("/tmp/escaped", "x")),
        "escape_spawn": attempt(lambda: req("child_process").execSync("id").decode()),
        "escape_worker": attempt(lambda: req("worker_threads").Worker.new("1", pyodide.ffi.to_js({"eval": True}))),
        "escape_kill_parent": attempt(lambda: host.kill(parent, 0)),
        "uid": host.getuid(),
        "env": host.constructor.constructor("return JSON.stringify(process.env)")(),
        "interfaces": list(req("os").networkInterfaces().to_py().keys()),
    }
`,
      { args: { parent: process.pid } },
    );
    if (!r.ok) {
      throw new Error(JSON.stringify(r));
    }
    const out = r.result as Record<string, unknown>;
    expect(out['open']).toMatch(/^FileNotFoundError/);
    for (const key of ['escape_read', 'escape_write', 'escape_spawn', 'escape_worker']) {
      expect(out[key]).toMatch(/Access to this API has been restricted|ERR_ACCESS_DENIED/);
    }
    // Even with the host's `process` in hand: user nobody cannot signal this process ...
    expect(out['escape_kill_parent']).toMatch(/EPERM/);
    expect(out['uid']).toBe(65534);
    // ... sees none of its environment ...
    expect(out['env']).toBe('{}');
    // ... and has no network interface (a network namespace of its own, loopback down).
    expect(out['interfaces']).toEqual([]);
    await stillServes('python');
  });

  it('has no network: a connection to a server on this host never arrives', async () => {
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const r = await py(
        `
import pyodide.ffi

def main(port):
    host = pyodide.ffi.to_js({}).constructor.constructor("return process")()
    net = host.mainModule.require("net")
    # Keep the child alive after main returns, so the connection has every chance to happen.
    host.exit = pyodide.ffi.create_proxy(lambda *a: None)
    sock = net.connect(port, "127.0.0.1")
    return "started"
`,
        { args: { port } },
      );
      expect(r).toMatchObject({ ok: true, result: 'started' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('mounts a granted directory read-only and nothing else', async () => {
    const r = await py(
      'import os\n\ndef main():\n    names = sorted(os.listdir("/usr/share/common-licenses"))\n    try:\n        with open("/usr/share/common-licenses/sandbox-wrote", "w") as f:\n            f.write("x")\n        wrote = "wrote"\n    except OSError as e:\n        wrote = str(e)\n    return {"listed": "GPL-3" in names, "wrote": wrote, "etc": os.path.exists("/etc/passwd")}\n',
      { grants: { readDirs: ['/usr/share/common-licenses'] } },
    );
    expect(r).toMatchObject({ ok: true, result: { listed: true, etc: false } });
    expect(existsSync('/usr/share/common-licenses/sandbox-wrote')).toBe(false);
    expect((r as { result: { wrote: string } }).result.wrote).not.toBe('wrote');
  });

  it('refuses Python, with the reason, where the confinement is missing; JavaScript still runs', async () => {
    const bare = new CodeSandbox(sandbox.config, {
      confinement: { available: false, missing: 'the "unshare" command (Debian package util-linux)' },
    });
    const r = failed(
      await bare.run({
        language: 'python',
        code: 'def main():\n    return 1\n',
        timeoutMs: 1000,
        memoryMb: 64,
      }),
    );
    expect(r.failure).toBe('sandbox_unavailable');
    expect(r.message).toContain('the "unshare" command');
    expect(r.message).toContain('never run without it');
    expect(
      await bare.run({
        language: 'javascript',
        code: 'function main() { return 1 }',
        timeoutMs: 1000,
        memoryMb: 16,
      }),
    ).toMatchObject({
      ok: true,
      result: 1,
    });
  });
});

describe(sandboxConfigFromEnv.name, () => {
  it('reads the limits, with defaults', () => {
    expect(sandboxConfigFromEnv({ SANDBOX_TIMEOUT_MS: '3000' })).toEqual({
      timeoutMs: 3000,
      memoryMb: 256,
      maxConcurrency: 2,
      startTimeoutMs: 60_000,
      maxOutputBytes: 1_000_000,
      dir: tmpdir(),
    });
  });

  it('stages in SWITCHYARD_SANDBOX_DIR, else in the temporary directory as os.tmpdir() finds it', () => {
    expect(sandboxConfigFromEnv({ SWITCHYARD_SANDBOX_DIR: '/var/sandbox/' }).dir).toBe('/var/sandbox');
    expect(sandboxConfigFromEnv({ SWITCHYARD_SANDBOX_DIR: '/var/sandbox', TMPDIR: '/scratch' }).dir).toBe(
      '/var/sandbox',
    );
    expect(sandboxConfigFromEnv({ TMPDIR: '/scratch/' }).dir).toBe('/scratch');
    expect(sandboxConfigFromEnv({ SWITCHYARD_SANDBOX_DIR: '' }).dir).toBe('/tmp');
    expect(sandboxConfigFromEnv({}).dir).toBe('/tmp');
    expect(sandboxConfigFromEnv().dir).toBe(tmpdir());
  });

  it.each([
    ['the default task deadline', {}, 10_000, 60_000],
    ['a short task deadline (defaults shrink to fit it)', { SWITCHYARD_TASK_TIMEOUT_MS: '6000' }, 1500, 3000],
    [
      'explicit limits inside a short deadline',
      { SWITCHYARD_TASK_TIMEOUT_MS: '6000', SANDBOX_TIMEOUT_MS: '2000', SANDBOX_START_TIMEOUT_MS: '3000' },
      2000,
      3000,
    ],
  ])('fits the limits to %s', (_, env, timeoutMs, startTimeoutMs) => {
    expect(sandboxConfigFromEnv(env)).toMatchObject({ timeoutMs, startTimeoutMs });
  });

  it('stops start-up naming a bad variable', () => {
    expect(() => sandboxConfigFromEnv({ SANDBOX_MEMORY_MB: 'lots' })).toThrow(/SANDBOX_MEMORY_MB \("lots"\)/);
    expect(() => sandboxConfigFromEnv({ SWITCHYARD_SANDBOX_DIR: 'tmp' })).toThrow(
      'SWITCHYARD_SANDBOX_DIR ("tmp"): must be an absolute directory path',
    );
    expect(() =>
      sandboxConfigFromEnv({ SANDBOX_TIMEOUT_MS: '100000', SWITCHYARD_TASK_TIMEOUT_MS: '120000' }),
    ).toThrow(/SANDBOX_TIMEOUT_MS .*must stay below SWITCHYARD_TASK_TIMEOUT_MS/);
    expect(() =>
      sandboxConfigFromEnv({ SANDBOX_START_TIMEOUT_MS: '5000', SWITCHYARD_TASK_TIMEOUT_MS: '6000' }),
    ).toThrow(/must stay below SWITCHYARD_TASK_TIMEOUT_MS/);
  });
});

describe('cancelling a job', () => {
  it('kills the child when the signal aborts, and the sandbox serves the next job', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const r = sandbox.run(
      { language: 'javascript', code: 'function main() { for (;;) {} }', timeoutMs: 60_000, memoryMb: 16 },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 1000);
    expect(failed(await r).failure).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(30_000);
    await stillServes('javascript');
  });
});

describe('the stage directory', () => {
  // Its parents must let user nobody through (an emptyDir is 0777); mkdtemp makes 0700.
  const base = mkdtempSync(join(tmpdir(), 'sy-sandbox-dir-'));
  chmodSync(base, 0o755);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('is made in the configured directory, and a stage a previous process of this PID left is removed', async () => {
    const dir = join(base, 'writable');
    mkdirSync(dir);
    // What a container's previous Node (PID 1 too) left in the emptyDir.
    const left = join(dir, `switchyard-sandbox-${process.pid}-old`);
    mkdirSync(left);
    const one = (s: CodeSandbox) =>
      s.run({ language: 'javascript', code: 'function main() { return 1 }', timeoutMs: 5000, memoryMb: 32 });
    const first = new CodeSandbox({ ...sandbox.config, dir });
    expect(await one(first)).toMatchObject({ ok: true, result: 1 });
    expect(existsSync(left)).toBe(false);
    const stages = readdirSync(dir);
    expect(stages).toEqual([expect.stringMatching(new RegExp(`^switchyard-sandbox-${process.pid}-`))]);
    // A second sandbox of this process in the same directory leaves the first one's stage alone.
    const second = new CodeSandbox({ ...sandbox.config, dir });
    expect(await one(second)).toMatchObject({ ok: true, result: 1 });
    expect(readdirSync(dir)).toHaveLength(2);
    expect(await one(first)).toMatchObject({ ok: true, result: 1 });
  });

  it('fails a job as sandbox_unavailable, naming the directory and its variable, where it cannot be written', async () => {
    const notADir = join(base, 'a-file');
    writeFileSync(notADir, '');
    const r = failed(
      await new CodeSandbox({ ...sandbox.config, dir: notADir }).run({
        language: 'javascript',
        code: 'function main() { return 1 }',
        timeoutMs: 5000,
        memoryMb: 32,
      }),
    );
    expect(r.failure).toBe('sandbox_unavailable');
    expect(r.message).toContain(`cannot stage its interpreters in ${notADir} (SWITCHYARD_SANDBOX_DIR`);
  });
});
