import { resolve } from 'node:path';
import { z } from 'zod';
import { loadConfig } from '@switchyard/config';

const schema = z.object({
  // Hosts http_get may reach although they resolve to private addresses (operators' internal APIs).
  SWITCHYARD_HTTP_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  SWITCHYARD_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // The directory `preprocess` reads local files from (mapping.provider 'local' or local_path).
  SWITCHYARD_FILES_ROOT: z.string().min(1).optional(),
  SWITCHYARD_FILES_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
});

export class ToolExecutorConfig {
  readonly allowHosts: string[];
  readonly timeoutMs: number;
  readonly filesRoot: string;
  readonly filesMaxBytes: number;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.allowHosts = cfg.SWITCHYARD_HTTP_ALLOW_HOSTS;
    this.timeoutMs = cfg.SWITCHYARD_HTTP_TIMEOUT_MS;
    this.filesRoot = resolve(cfg.SWITCHYARD_FILES_ROOT ?? 'tmp/files');
    this.filesMaxBytes = cfg.SWITCHYARD_FILES_MAX_BYTES;
  }
}
