import { z } from 'zod';
import { ConfigException, SANDBOX_DIR, absoluteDir, loadConfig, writeLocationPath } from '@switchyard/config';

const schema = z.object({
  // The default wall-time limit of user code (the interpreter's start-up is not counted).
  // Unset: 10 s, or a quarter of the task deadline when that is shorter.
  SANDBOX_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  // The default memory limit of user code: QuickJS's heap; Python's cgroup on top of the runtime.
  SANDBOX_MEMORY_MB: z.coerce.number().int().min(16).max(4096).default(256),
  // How many sandboxed processes run at once in this service; further jobs wait their turn.
  SANDBOX_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  // How long an interpreter may take to start (Pyodide needs seconds on a busy machine).
  // Unset: 60 s, or half the task deadline when that is shorter.
  SANDBOX_START_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).optional(),
  // What a job may print (stdout and stderr together); the rest is cut and said so.
  SANDBOX_MAX_OUTPUT_BYTES: z.coerce.number().int().min(1024).max(16_000_000).default(1_000_000),
  // Where the interpreters are staged (about 25 MB a process); unset, the system's temporary
  // directory. It must be writable: under a read-only root file system, an emptyDir.
  SWITCHYARD_SANDBOX_DIR: absoluteDir,
  // A task's deadline (libs/config's default): a job must be over, start-up included, before it.
  SWITCHYARD_TASK_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
});

/** The sandbox's limits, from the environment (validated once, at start-up). */
export interface SandboxConfig {
  timeoutMs: number;
  memoryMb: number;
  maxConcurrency: number;
  startTimeoutMs: number;
  maxOutputBytes: number;
  /** The directory the stage is made in (SWITCHYARD_SANDBOX_DIR, else os.tmpdir()). */
  dir: string;
}

export function sandboxConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const cfg = loadConfig(schema, env);
  // Defaults fit inside the task's deadline; values set explicitly are taken as they are.
  const task = cfg.SWITCHYARD_TASK_TIMEOUT_MS;
  const timeoutMs = cfg.SANDBOX_TIMEOUT_MS ?? Math.min(10_000, Math.floor(task / 4));
  const startTimeoutMs = cfg.SANDBOX_START_TIMEOUT_MS ?? Math.min(60_000, Math.floor(task / 2));
  if (startTimeoutMs + timeoutMs >= task) {
    throw new ConfigException([
      `SANDBOX_TIMEOUT_MS (${timeoutMs}) + SANDBOX_START_TIMEOUT_MS (${startTimeoutMs}): must stay below SWITCHYARD_TASK_TIMEOUT_MS (${task}), or the task is taken for lost while its code still runs`,
    ]);
  }
  return {
    timeoutMs,
    memoryMb: cfg.SANDBOX_MEMORY_MB,
    maxConcurrency: cfg.SANDBOX_MAX_CONCURRENCY,
    startTimeoutMs,
    maxOutputBytes: cfg.SANDBOX_MAX_OUTPUT_BYTES,
    dir: writeLocationPath(SANDBOX_DIR, env),
  };
}
