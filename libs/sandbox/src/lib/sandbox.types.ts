import { z } from 'zod';

export const SANDBOX_LANGUAGES = ['javascript', 'python'] as const;
export type SandboxLanguage = (typeof SANDBOX_LANGUAGES)[number];

/**
 * What user code may reach besides its arguments. Nothing by default; `readDirs` (Python only)
 * mounts host directories read-only at the same path inside the interpreter.
 */
export const SandboxGrantsSchema = z
  .object({
    readDirs: z
      .array(z.string().refine((p) => p.startsWith('/') && !p.split('/').includes('..'), 'an absolute path'))
      .max(8)
      .optional(),
  })
  .strict();
export type SandboxGrants = z.infer<typeof SandboxGrantsSchema>;

export const RunCodeRequestSchema = z
  .object({
    language: z.enum(SANDBOX_LANGUAGES),
    code: z.string().min(1, 'the code is empty').max(1_000_000),
    /** Passed to `main`: Python `main(**args)`, JavaScript `main(args)`. */
    args: z.record(z.string(), z.unknown()).default({}),
    /** Wall time of the user code (loading the interpreter is not counted). */
    timeoutMs: z.number().int().min(10).max(600_000),
    memoryMb: z.number().int().min(8).max(4096),
    grants: SandboxGrantsSchema.optional(),
  })
  .strict();
export type RunCodeRequest = z.input<typeof RunCodeRequestSchema>;

/** Why code did not produce a result. Only `sandbox_unavailable` can pass on another machine. */
export type SandboxFailureCode =
  | 'timeout'
  | 'memory_limit'
  | 'code_error'
  | 'sandbox_unavailable'
  /** The caller's signal ended the job. */
  | 'cancelled';

export interface RunCodeSuccess {
  ok: true;
  /** What `main` returned, as JSON. */
  result: unknown;
  stdout: string;
  stderr: string;
}

export interface RunCodeFailure {
  ok: false;
  failure: SandboxFailureCode;
  /** One line saying what happened (for a code error, the exception's type and message). */
  message: string;
  /** A code error's traceback (Python) or stack (JavaScript). */
  traceback?: string;
  stdout: string;
  stderr: string;
}

export type RunCodeResult = RunCodeSuccess | RunCodeFailure;

/** The last line a runner writes on its stdout (the protocol between parent and child). */
export type RunnerReport =
  | { type: 'ready' }
  | { type: 'result'; json: string; stdout: string; stderr: string }
  | {
      type: 'error';
      failure: Exclude<SandboxFailureCode, 'sandbox_unavailable' | 'cancelled'>;
      message: string;
      traceback?: string;
      stdout: string;
      stderr: string;
    };

/** The job a parent sends to a ready runner on its stdin (one JSON line). */
export interface RunnerJob {
  code: string;
  argsJson: string;
  timeoutMs: number;
  memoryMb: number;
  maxOutputBytes: number;
  readDirs: string[];
}
