import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type Confinement, type MemoryCgroup, NOBODY_GID, NOBODY_UID, probeConfinement } from './confinement';
import { runnerScript } from './runners';
import { type SandboxConfig, sandboxConfigFromEnv } from './sandbox.config';
import {
  type RunCodeFailure,
  type RunCodeRequest,
  RunCodeRequestSchema,
  type RunCodeResult,
  type RunnerJob,
  type RunnerReport,
  type SandboxFailureCode,
} from './sandbox.types';

// What the Python child needs on top of the user's memory: Node and the loaded Pyodide runtime.
const PYTHON_RUNTIME_MB = 320;
// QuickJS stops the code itself at the deadline; the parent's kill is the backstop after this.
const JS_KILL_GRACE_MS = 1000;

/** The files the children run, copied where user nobody can read them (owned by this user). */
interface Stage {
  dir: string;
}

/**
 * Runs JavaScript and Python code in child processes, one process per job, so that a runaway
 * loop or allocation ends in a killed child and a typed failure while this process goes on.
 * JavaScript runs in QuickJS (WebAssembly) under Node's permission model; Python runs in Pyodide
 * only inside the OS confinement of `probeConfinement`, and is refused when that is missing.
 */
export class CodeSandbox {
  private confinement?: Confinement;
  private stage?: Stage;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /** `confinement` replaces the probe (a machine without it is simulated so). */
  constructor(
    readonly config: SandboxConfig = sandboxConfigFromEnv(),
    options: { confinement?: Confinement } = {},
  ) {
    this.confinement = options.confinement;
  }

  /** Whether Python can run here, and if not what is missing (probed once). */
  pythonConfinement(): Confinement {
    if (!this.confinement) {
      const probed = probeConfinement();
      this.confinement = probed.available ? this.checkNodeAsNobody(probed) : probed;
    }
    return this.confinement;
  }

  /** Runs one job; `signal` ends it early (the child is killed, the failure is `cancelled`). */
  async run(request: RunCodeRequest, opts: { signal?: AbortSignal } = {}): Promise<RunCodeResult> {
    const parsed = RunCodeRequestSchema.safeParse(request);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`);
      throw new TypeError(`runCode: bad request (${problems.join('; ')})`);
    }
    const req = parsed.data;
    const readDirs = req.grants?.readDirs ?? [];
    if (req.language === 'javascript' && readDirs.length) {
      throw new TypeError('runCode: grants.readDirs applies to python only (QuickJS has no file API)');
    }
    if (req.language === 'python') {
      const confinement = this.pythonConfinement();
      if (!confinement.available) {
        return failure(
          'sandbox_unavailable',
          `Python cannot run on this machine: the sandbox needs ${confinement.missing}, and Python is never run without it`,
        );
      }
    }
    await this.acquire();
    try {
      if (opts.signal?.aborted) {
        return failure('cancelled', 'the job was cancelled before it started');
      }
      const job: RunnerJob = {
        code: req.code,
        argsJson: JSON.stringify(req.args),
        timeoutMs: req.timeoutMs,
        memoryMb: req.memoryMb,
        maxOutputBytes: this.config.maxOutputBytes,
        readDirs,
      };
      return await this.execute(req.language, job, opts.signal);
    } finally {
      this.release();
    }
  }

  private async execute(
    language: 'javascript' | 'python',
    job: RunnerJob,
    signal: AbortSignal | undefined,
  ): Promise<RunCodeResult> {
    let stage: Stage;
    try {
      stage = this.staged();
    } catch (err) {
      return failure(
        'sandbox_unavailable',
        `the sandbox cannot stage its interpreters in ${this.config.dir} (SWITCHYARD_SANDBOX_DIR, else the temporary directory; it must be writable, an emptyDir under a read-only root file system): ${(err as Error).message}`,
      );
    }
    let cgroup: MemoryCgroup | undefined;
    let child: ChildProcess;
    if (language === 'javascript') {
      // QuickJS is the wall; where the OS confinement exists the child gets it too (no network,
      // user nobody), so even an escape from the interpreter would find nothing.
      const walls = this.pythonConfinement().available ? ['unshare', '-n', '--', ...nobody()] : [];
      const node = [
        process.execPath,
        '--experimental-permission',
        `--allow-fs-read=${stage.dir}`,
        '--no-warnings',
        '--max-old-space-size=64',
        join(stage.dir, 'javascript-runner.js'),
      ];
      const [command, ...args] = [...walls, ...node];
      child = spawn(command, args, { env: {}, cwd: stage.dir, stdio: 'pipe', detached: true });
    } else {
      const confinement = this.pythonConfinement();
      if (!confinement.available) {
        return failure('sandbox_unavailable', `Python cannot run: the sandbox needs ${confinement.missing}`);
      }
      try {
        cgroup = confinement.cgroups.create(PYTHON_RUNTIME_MB + job.memoryMb);
      } catch (err) {
        return failure('sandbox_unavailable', `no memory cgroup could be made: ${(err as Error).message}`);
      }
      child = spawn(
        'unshare',
        [
          '-n',
          '--',
          ...nobody(),
          process.execPath,
          '--experimental-permission',
          `--allow-fs-read=${stage.dir}`,
          ...job.readDirs.map((d) => `--allow-fs-read=${d}`),
          '--no-warnings',
          join(stage.dir, 'python-runner.js'),
        ],
        { env: {}, cwd: stage.dir, stdio: 'pipe', detached: true },
      );
      try {
        if (child.pid !== undefined) {
          cgroup.enter(child.pid);
        }
      } catch (err) {
        kill(child);
        await cgroup.remove();
        return failure(
          'sandbox_unavailable',
          `the memory cgroup refused the child: ${(err as Error).message}`,
        );
      }
    }
    try {
      return await this.talk(child, language, job, cgroup, signal);
    } finally {
      kill(child);
      await cgroup?.remove();
    }
  }

  /** Waits for `ready`, sends the job, and turns the report (or the child's end) into a result. */
  private talk(
    child: ChildProcess,
    language: 'javascript' | 'python',
    job: RunnerJob,
    cgroup: MemoryCgroup | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RunCodeResult> {
    return new Promise<RunCodeResult>((resolve) => {
      let lines = '';
      let stderr = '';
      let phase: 'starting' | 'running' | 'done' = 'starting';
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        kill(child);
        finish(failure('cancelled', 'the job was cancelled'));
      };
      const finish = (result: RunCodeResult) => {
        if (phase !== 'done') {
          phase = 'done';
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => {
        kill(child);
        finish(
          failure(
            'sandbox_unavailable',
            `the ${language} interpreter did not start within ${this.config.startTimeoutMs} ms`,
          ),
        );
      }, this.config.startTimeoutMs);
      child.stdout?.setEncoding('utf8');
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-8000);
      });
      child.stdout?.on('data', (chunk: string) => {
        lines += chunk;
        // Escaped code could flood the pipe; the protocol never needs more than this.
        if (lines.length > 4 * job.maxOutputBytes + job.code.length + 65_536) {
          kill(child);
          finish(failure('code_error', 'the sandbox process wrote more output than allowed'));
          return;
        }
        let end: number;
        while ((end = lines.indexOf('\n')) >= 0) {
          const line = lines.slice(0, end);
          lines = lines.slice(end + 1);
          let report: RunnerReport;
          try {
            report = JSON.parse(line) as RunnerReport;
          } catch {
            continue;
          }
          if (report.type === 'ready' && phase === 'starting') {
            phase = 'running';
            clearTimeout(timer);
            const limit = job.timeoutMs + (language === 'javascript' ? JS_KILL_GRACE_MS : 0);
            timer = setTimeout(() => {
              timedOut = true;
              kill(child);
            }, limit);
            child.stdin?.end(`${JSON.stringify(job)}\n`);
          } else if (report.type === 'result' && phase === 'running') {
            let result: unknown;
            try {
              result = JSON.parse(report.json);
            } catch {
              finish(failure('code_error', 'main() returned a value that is not JSON'));
              return;
            }
            finish({ ok: true, result, stdout: report.stdout, stderr: report.stderr });
          } else if (report.type === 'error' && phase === 'running') {
            finish({
              ok: false,
              failure: report.failure,
              message: report.message,
              ...(report.traceback ? { traceback: report.traceback } : {}),
              stdout: report.stdout,
              stderr: report.stderr,
            });
          }
        }
      });
      child.on('error', (err) =>
        finish(failure('sandbox_unavailable', `the sandbox process could not start: ${err.message}`)),
      );
      child.on('close', (code, signal) => {
        if (phase === 'done') {
          return;
        }
        if (timedOut) {
          finish(failure('timeout', `the code ran past its ${job.timeoutMs} ms limit`));
        } else if (cgroup?.oomKilled() || /heap out of memory|Allocation failed/i.test(stderr)) {
          finish(failure('memory_limit', `the code used more than its ${job.memoryMb} MB limit`));
        } else if (phase === 'starting') {
          finish(
            failure(
              'sandbox_unavailable',
              `the ${language} interpreter failed to start (exit ${code ?? signal}): ${stderr.trim().slice(-500)}`,
            ),
          );
        } else {
          finish(
            failure(
              'code_error',
              `the sandbox process ended without a result (exit ${code ?? signal})${stderr ? `: ${stderr.trim().slice(-500)}` : ''}`,
            ),
          );
        }
      });
    });
  }

  /** The runner scripts and Pyodide, once per process, in a fresh directory readable by nobody. */
  private staged(): Stage {
    if (this.stage) {
      return this.stage;
    }
    removeStaleStages(this.config.dir);
    const dir = mkdtempSync(join(this.config.dir, `${STAGE_PREFIX}${process.pid}-`));
    try {
      this.stage = { dir: stageInto(dir) };
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    OWN_STAGES.add(dir);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return this.stage;
  }

  /** The node binary must be reachable by nobody (not the case under /root, say). */
  private checkNodeAsNobody(confinement: Confinement): Confinement {
    const r = spawnSync('unshare', ['-n', '--', ...nobody(), process.execPath, '-e', '0'], {
      env: {},
      stdio: 'ignore',
      timeout: 30_000,
    });
    return r.status === 0
      ? confinement
      : {
          available: false,
          missing: `a node binary that user nobody may run (${process.execPath} failed as nobody)`,
        };
  }

  private async acquire(): Promise<void> {
    if (this.active < this.config.maxConcurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.active--;
    }
  }
}

const STAGE_PREFIX = 'switchyard-sandbox-';
/** The stages of this process's sandboxes (one process may hold several). */
const OWN_STAGES = new Set<string>();

/**
 * Stages left in `base` by processes that ended without their exit handler (killed): ours only.
 * One with this process's own id is a previous container's (every container's Node is PID 1,
 * and an emptyDir outlives the container).
 */
function removeStaleStages(base: string): void {
  for (const name of readdirSync(base)) {
    const pid = Number(name.startsWith(STAGE_PREFIX) ? name.slice(STAGE_PREFIX.length).split('-')[0] : NaN);
    if (!Number.isInteger(pid) || pid <= 0) {
      continue;
    }
    const path = join(base, name);
    try {
      if (statSync(path).uid !== process.getuid?.()) {
        continue;
      }
      if (pid === process.pid) {
        if (OWN_STAGES.has(path)) {
          continue;
        }
        rmSync(path, { recursive: true, force: true });
        continue;
      }
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') {
        rmSync(path, { recursive: true, force: true });
      }
    }
  }
}

/** Copies the runner scripts, QuickJS and Pyodide into `dir`, readable by user nobody. */
function stageInto(dir: string): string {
  chmodSync(dir, 0o755);
  const quickjsEntry = require.resolve('quickjs-emscripten');
  const pyodideDir = dirname(require.resolve('pyodide'));
  const pyodideCopy = join(dir, 'pyodide');
  copyReadable(pyodideDir, pyodideCopy, (src) => !/\.(map|html|d\.ts)$/.test(src));
  // QuickJS and what it requires, under a node_modules of the stage's own.
  const entry = realpathSync(quickjsEntry);
  const modules = entry.slice(0, entry.lastIndexOf('/node_modules/') + '/node_modules'.length);
  for (const pkg of ['quickjs-emscripten', 'quickjs-emscripten-core', '@jitl']) {
    copyReadable(join(modules, pkg), join(dir, 'node_modules', pkg), (src) => !/\.(map|d\.m?ts)$/.test(src));
  }
  chmodSync(join(dir, 'node_modules'), 0o755);
  const stagedEntry = join(dir, 'node_modules', relative(modules, entry));
  writeFileSync(join(dir, 'javascript-runner.js'), runnerScript('javascript', stagedEntry), {
    mode: 0o644,
  });
  writeFileSync(join(dir, 'python-runner.js'), runnerScript('python', pyodideCopy), { mode: 0o644 });
  return dir;
}

/** setpriv to nobody with no groups, no capabilities and no way to regain privileges. */
function nobody(): string[] {
  return [
    'setpriv',
    `--reuid=${NOBODY_UID}`,
    `--regid=${NOBODY_GID}`,
    '--clear-groups',
    '--no-new-privs',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--',
  ];
}

/** Copies a tree with directories 755 and files 644, so user nobody can read it. */
function copyReadable(from: string, to: string, filter: (src: string) => boolean): void {
  cpSync(from, to, { recursive: true, dereference: true, filter });
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) {
      chmodSync(path, 0o755);
      for (const name of readdirSync(path)) {
        walk(join(path, name));
      }
    } else {
      chmodSync(path, 0o644);
    }
  };
  walk(to);
}

function kill(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
}

function failure(code: SandboxFailureCode, message: string): RunCodeFailure {
  return { ok: false, failure: code, message, stdout: '', stderr: '' };
}

let shared: CodeSandbox | undefined;

/** Runs one job in the process-wide sandbox (limits from the environment). */
export function runCode(request: RunCodeRequest): Promise<RunCodeResult> {
  shared ??= new CodeSandbox();
  return shared.run(request);
}
