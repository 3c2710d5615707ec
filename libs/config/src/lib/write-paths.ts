import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { AppName } from './service-ports';

/**
 * A directory a service writes files to. The code finds it with `writeLocationPath` and the
 * manifests' test (tools/deploy/src/overlays.spec.ts) renders every Deployment and checks
 * that each of its service's locations is writable there (a read-only root file system needs an
 * `emptyDir` mounted at or above it) — and that nothing else is.
 */
export interface WriteLocation {
  /** What the service keeps there. */
  purpose: string;
  /** Variables that move it, in order: the first one set (and not empty) wins. */
  variables: readonly string[];
  /** Where it is when none of them is set. */
  fallback: string;
}

/**
 * The code sandbox's stage (libs/sandbox): the interpreters and runner scripts copied once per
 * process (about 25 MB), where the sandboxed children may read them. `SWITCHYARD_SANDBOX_DIR`,
 * else the system's temporary directory (`os.tmpdir()`: TMPDIR, TMP, TEMP, else /tmp).
 */
export const SANDBOX_DIR: WriteLocation = {
  purpose: "the code sandbox's staged interpreters (CodeExec)",
  variables: ['SWITCHYARD_SANDBOX_DIR', 'TMPDIR', 'TMP', 'TEMP'],
  fallback: '/tmp',
};

/**
 * The tool-executor's stdio MCP servers are programs the operator approves
 * (`SWITCHYARD_MCP_STDIO_ALLOW`), and they write where they like (`npx` and `uvx` caches, their
 * own files): its root file system stays writable.
 */
export const MCP_STDIO_SERVERS: WriteLocation = {
  purpose: 'stdio MCP servers (operator-approved programs; they may write anywhere)',
  variables: [],
  fallback: '/',
};

/** Every place each service writes files; a service not writing any has none. */
export const SERVICE_WRITES: Readonly<Record<AppName, readonly WriteLocation[]>> = {
  gateway: [],
  'run-orchestrator': [],
  planner: [SANDBOX_DIR],
  'tool-executor': [MCP_STDIO_SERVERS],
  reflection: [],
  retrieval: [],
  output: [],
};

/** The directory of `location` under `env`. */
export function writeLocationPath(location: WriteLocation, env: NodeJS.ProcessEnv = process.env): string {
  const set = location.variables.map((v) => env[v]).find((v) => v !== undefined && v !== '');
  // As os.tmpdir(): no trailing slash (but `/` stays `/`).
  return (set ?? location.fallback).replace(/(.)\/+$/, '$1');
}

/** A variable naming a directory: an absolute path, or not set (empty counts as not set). */
export const absoluteDir = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .string()
    .refine((v) => isAbsolute(v), 'must be an absolute directory path')
    .optional(),
);
