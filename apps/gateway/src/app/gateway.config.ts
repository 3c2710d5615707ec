import { z } from 'zod';
import { loadConfig } from '@switchyard/config';

const schema = z.object({
  // Quick start: the gateway makes sure tenant `default` exists with this key.
  SWITCHYARD_BOOTSTRAP_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  SWITCHYARD_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  SWITCHYARD_DEFAULT_MAX_STEPS: z.coerce.number().int().min(1).max(10_000).default(50),
});

export class GatewayConfig {
  readonly bootstrapKey?: string;
  readonly heartbeatMs: number;
  readonly defaultMaxSteps: number;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.bootstrapKey = cfg.SWITCHYARD_BOOTSTRAP_KEY;
    this.heartbeatMs = cfg.SWITCHYARD_SSE_HEARTBEAT_MS;
    this.defaultMaxSteps = cfg.SWITCHYARD_DEFAULT_MAX_STEPS;
  }
}
