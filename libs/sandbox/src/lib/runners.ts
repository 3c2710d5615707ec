/* eslint-disable @typescript-eslint/no-require-imports -- the runners are CommonJS scripts of their own */
import type * as Fs from 'node:fs';
import type * as Os from 'node:os';
import type * as Pyodide from 'pyodide';
import type * as QuickJs from 'quickjs-emscripten';
import type { RunnerJob, RunnerReport } from './sandbox.types';

// The two runners are the programs of the sandbox's child processes. Each is written to a file as
// `(<function source>)(<arguments>)`, so they must use nothing of this module but types: every
// value comes from `require` or the arguments. A runner loads its interpreter, says `ready`, reads
// one job line on stdin, runs it and writes one report line on stdout, then exits.

/** The child's side of the protocol: one job in, one report out, the user's output capped. */
function runnerIo(onJob: (job: RunnerJob, io: RunnerIo) => Promise<RunnerReport> | RunnerReport) {
  const out = { stdout: '', stderr: '', max: 0, cut: false };
  const io: RunnerIo = {
    write(stream, text) {
      const room = out.max - out.stdout.length - out.stderr.length;
      if (room <= 0 || text.length > room) {
        out.cut = true;
      }
      if (room > 0) {
        out[stream] += text.slice(0, room);
      }
    },
    output: () => ({
      stdout: out.stdout,
      stderr: out.cut ? `${out.stderr}\n[output cut at ${out.max} characters]\n` : out.stderr,
    }),
  };
  const send = (report: RunnerReport) => process.stdout.write(`${JSON.stringify(report)}\n`);
  let line = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    line += chunk;
    const end = line.indexOf('\n');
    if (end < 0) {
      return;
    }
    process.stdin.pause();
    const job = JSON.parse(line.slice(0, end)) as RunnerJob;
    out.max = job.maxOutputBytes;
    Promise.resolve()
      .then(() => onJob(job, io))
      .then(
        (report) => send(report),
        (err: unknown) =>
          send({ type: 'error', failure: 'code_error', message: String(err), ...io.output() }),
      )
      .finally(() => process.exit(0));
  });
  send({ type: 'ready' });
}

export interface RunnerIo {
  write(stream: 'stdout' | 'stderr', text: string): void;
  output(): { stdout: string; stderr: string };
}

/**
 * JavaScript in QuickJS compiled to WebAssembly: the code sees only the language, `console` and
 * its arguments (no `process`, `require`, timers, fs or network exist in the interpreter). Time is
 * cut by QuickJS's interrupt handler, memory by its allocator limit.
 */
export function javascriptRunner(quickjsEntry: string, io: typeof runnerIo): void {
  const { getQuickJS } = require(quickjsEntry) as typeof QuickJs;
  void getQuickJS().then((QuickJS) =>
    io((job, out) => {
      const runtime = QuickJS.newRuntime();
      runtime.setMemoryLimit(job.memoryMb * 1024 * 1024);
      runtime.setMaxStackSize(1024 * 1024);
      const deadline = Date.now() + job.timeoutMs;
      runtime.setInterruptHandler(() => Date.now() > deadline);
      const vm = runtime.newContext();
      const consoleObject = vm.newObject();
      const streams = { log: 'stdout', info: 'stdout', debug: 'stdout', warn: 'stderr', error: 'stderr' };
      for (const [name, stream] of Object.entries(streams)) {
        const fn = vm.newFunction(name, (...handles) => {
          const parts = handles.map((h) => {
            const v: unknown = vm.dump(h);
            return typeof v === 'string' ? v : JSON.stringify(v);
          });
          out.write(stream as 'stdout' | 'stderr', `${parts.join(' ')}\n`);
        });
        vm.setProp(consoleObject, name, fn);
        fn.dispose();
      }
      vm.setProp(vm.global, 'console', consoleObject);
      consoleObject.dispose();
      // RAGFlow's wrapper: `main` declared or exported (module.exports), called with the
      // arguments, awaited, and its value must be JSON. The prelude shares the code's first line,
      // so line numbers in errors are the user's.
      const source = `var module = { exports: {} }, exports = module.exports, require = (name) => { throw new Error('require("' + name + '") is not available in the sandbox'); };${job.code}
;(async () => {
  const __main = typeof main === 'function' ? main : module.exports && module.exports.main;
  if (typeof __main !== 'function') { throw new Error('main() must be defined or exported.'); }
  const output = await __main(${job.argsJson});
  if (typeof output === 'undefined') { throw new Error('main() must return a value. Use null for an empty result.'); }
  const json = JSON.stringify(output);
  if (typeof json === 'undefined') { throw new Error('main() returned a value that is not JSON.'); }
  return json;
})()`;
      const failed = (handle: { dispose(): void }): RunnerReport => {
        const e = vm.dump(handle as never) as { name?: string; message?: string; stack?: string } | string;
        const name = typeof e === 'object' && e ? (e.name ?? 'Error') : 'Error';
        const message = typeof e === 'object' && e ? String(e.message ?? '') : String(e);
        if (name === 'InternalError' && message === 'interrupted') {
          return {
            type: 'error',
            failure: 'timeout',
            message: `the code ran past its ${job.timeoutMs} ms limit`,
            ...out.output(),
          };
        }
        if (name === 'InternalError' && message === 'out of memory') {
          return {
            type: 'error',
            failure: 'memory_limit',
            message: `the code used more than its ${job.memoryMb} MB limit`,
            ...out.output(),
          };
        }
        const stack = typeof e === 'object' && e && e.stack ? String(e.stack) : '';
        return {
          type: 'error',
          failure: 'code_error',
          message: `${name}: ${message}`,
          traceback: `${name}: ${message}\n${stack.replace(/^\s*\n/, '')}`.trimEnd(),
          ...out.output(),
        };
      };
      const evaluated = vm.evalCode(source, 'main.js', { type: 'global' });
      if (evaluated.error) {
        return failed(evaluated.error);
      }
      const promise = evaluated.value;
      for (;;) {
        const state = vm.getPromiseState(promise);
        if (state.type === 'fulfilled') {
          const json = vm.getString(state.value);
          return { type: 'result', json, ...out.output() };
        }
        if (state.type === 'rejected') {
          return failed(state.error);
        }
        const jobs = runtime.executePendingJobs();
        if (jobs.error) {
          return failed(jobs.error);
        }
        if (jobs.value === 0 && vm.getPromiseState(promise).type === 'pending') {
          // No timers or I/O exist here: a promise nothing will settle never ends.
          return {
            type: 'error',
            failure: 'code_error',
            message: 'main() returned a promise that never settles',
            ...out.output(),
          };
        }
      }
    }),
  );
}

/**
 * Python in Pyodide (CPython compiled to WebAssembly). Pyodide is no boundary on its own — its
 * FFI reaches the host's `process` — so this runner is only started inside the confinement
 * (permission model, no network namespace, user nobody, memory cgroup) that the parent sets up.
 */
export function pythonRunner(pyodideDir: string, io: typeof runnerIo): void {
  const fs = require('node:fs') as typeof Fs;
  const os = require('node:os') as typeof Os;
  // Pyodide reads the O_* flags through process.binding, which the permission model refuses.
  (process as unknown as { binding: (name: string) => unknown }).binding = (name: string) => {
    if (name === 'constants') {
      return { fs: fs.constants, os: os.constants };
    }
    throw new Error(`process.binding("${name}") is not available`);
  };
  const { loadPyodide } = require(`${pyodideDir}/pyodide.js`) as typeof Pyodide;
  void loadPyodide({ indexURL: `${pyodideDir}/`, stdout: () => undefined, stderr: () => undefined }).then(
    (py) => {
      py.runPython(PYTHON_WRAPPER_SOURCE);
      io((job, out) => {
        py.setStdout({ batched: (s: string) => out.write('stdout', `${s}\n`) });
        py.setStderr({ batched: (s: string) => out.write('stderr', `${s}\n`) });
        py.setStdin({ error: true });
        for (const dir of job.readDirs) {
          py.FS.mkdirTree(dir);
          py.mountNodeFS(dir, dir);
        }
        const run = py.globals.get('__sandbox_run') as (code: string, argsJson: string) => string;
        const report = JSON.parse(run(job.code, job.argsJson)) as
          { json: string } | { failure: 'code_error' | 'memory_limit'; message: string; traceback?: string };
        if ('json' in report) {
          return { type: 'result', json: report.json, ...out.output() };
        }
        return { type: 'error', ...report, ...out.output() };
      });
    },
  );
}

// RAGFlow's Python wrapper: the script runs as `__main__`, then `main(**args)`, and the value
// must be JSON. The traceback starts at the user's code (the wrapper's frame is left out).
const PYTHON_WRAPPER_SOURCE = `
import json as __json, traceback as __traceback

def __sandbox_run(code, args_json):
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(code, "<code>", "exec"), ns)
        main = ns.get("main")
        if not callable(main):
            return __json.dumps({"failure": "code_error", "message": "main() must be defined."})
        result = main(**__json.loads(args_json))
    except MemoryError:
        return __json.dumps({"failure": "memory_limit", "message": "MemoryError: the interpreter ran out of memory"})
    except BaseException as e:
        tb = "".join(__traceback.format_exception(type(e), e, e.__traceback__.tb_next))
        return __json.dumps({"failure": "code_error", "message": f"{type(e).__name__}: {e}", "traceback": tb})
    try:
        return __json.dumps({"json": __json.dumps(result, ensure_ascii=False)})
    except (TypeError, ValueError) as e:
        return __json.dumps({"failure": "code_error", "message": f"main() returned a value that is not JSON: {e}"})
`;

/** The file a runner child executes. */
export function runnerScript(language: 'javascript' | 'python', entry: string): string {
  const runner = language === 'javascript' ? javascriptRunner : pythonRunner;
  const prelude =
    language === 'python' ? `const PYTHON_WRAPPER_SOURCE = ${JSON.stringify(PYTHON_WRAPPER_SOURCE)};\n` : '';
  return `'use strict';\n${prelude}(${runner.toString()})(${JSON.stringify(entry)}, ${runnerIo.toString()});\n`;
}
