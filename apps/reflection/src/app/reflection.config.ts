import { z } from 'zod';
import { loadConfig } from '@switchyard/config';

const schema = z.object({
  // Back-off before a failed todo is tried again: base · 2^(retry−1), at most max (ms).
  SWITCHYARD_TODO_RETRY_BASE_MS: z.coerce.number().int().min(0).max(600_000).default(1_000),
  SWITCHYARD_TODO_RETRY_MAX_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
});

export class ReflectionConfig {
  readonly backoff: { baseMs: number; maxMs: number };
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.backoff = { baseMs: cfg.SWITCHYARD_TODO_RETRY_BASE_MS, maxMs: cfg.SWITCHYARD_TODO_RETRY_MAX_MS };
  }
}
