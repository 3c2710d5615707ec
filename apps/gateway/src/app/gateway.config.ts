import { z } from 'zod';
import {
  type ObjectStoreProvider,
  loadConfig,
  objectStoresEnvSchema,
  secretEnvSchema,
} from '@switchyard/config';

const schema = z.object({
  // Quick start: the gateway makes sure tenant `default` exists with this key.
  SWITCHYARD_BOOTSTRAP_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  // Admin routes (/v1/admin/...) take this as their bearer token; unset disables them.
  SWITCHYARD_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SWITCHYARD_SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  // An event stream's maximum age: then it ends with `close` and the client reconnects (0: none).
  SWITCHYARD_SSE_MAX_LIFETIME_MS: z.coerce.number().int().min(0).max(86_400_000).default(1_800_000),
  SWITCHYARD_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(50),
  SWITCHYARD_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  // Runs of one tenant queued, running or waiting at once.
  SWITCHYARD_MAX_ACTIVE_RUNS: z.coerce.number().int().min(1).default(200),
  // A tenant's runs running at once (the orchestrator holds the rest queued; same variable there).
  SWITCHYARD_TENANT_MAX_RUNNING: z.coerce.number().int().min(1).max(100_000).default(64),
  SWITCHYARD_DEFAULT_MAX_STEPS: z.coerce.number().int().min(1).max(10_000).default(50),
  // Webhook hosts (names or IPs, comma-separated) allowed although private (the address guard).
  SWITCHYARD_WEBHOOK_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    ),
  // The embedding model of the store's semantic search (built in, or the registry's of that name).
  SWITCHYARD_STORE_EMBEDDING_MODEL: z.string().trim().min(1).default('hash-embedding-v1'),
  // Browser origins allowed to call the API (comma-separated `https://host[:port]`, or `*`); unset: none.
  SWITCHYARD_CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), {
      message: 'must be `*` or origins like https://console.example.com[:port], comma-separated, no paths',
    }),
});

export class GatewayConfig {
  readonly bootstrapKey?: string;
  readonly adminToken?: string;
  readonly heartbeatMs: number;
  readonly sseMaxLifetimeMs: number;
  readonly defaultMaxSteps: number;
  readonly rateLimitPerSecond: number;
  readonly rateLimitBurst: number;
  readonly maxActiveRuns: number;
  readonly tenantMaxRunning: number;
  /** Browser origins allowed by CORS (`*` for any); empty: CORS off. */
  readonly corsOrigins: string[];
  /** Hosts a webhook may reach although private (SWITCHYARD_WEBHOOK_ALLOW_HOSTS). */
  readonly webhookAllowHosts: string[];
  /** The object stores a run's files may name (SWITCHYARD_OBJECT_STORES; the tool-executor reads them). */
  readonly objectStores: readonly ObjectStoreProvider[];
  /** The store's embedding model (semantic `query` in `/store/items/search`). */
  readonly storeEmbeddingModel: string;
  /** Seals vendor keys at rest (SecretBox); validated here so a bad key stops start-up. */
  readonly secretKey: string;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.bootstrapKey = cfg.SWITCHYARD_BOOTSTRAP_KEY;
    this.adminToken = cfg.SWITCHYARD_ADMIN_TOKEN;
    this.heartbeatMs = cfg.SWITCHYARD_SSE_HEARTBEAT_MS;
    this.sseMaxLifetimeMs = cfg.SWITCHYARD_SSE_MAX_LIFETIME_MS;
    this.defaultMaxSteps = cfg.SWITCHYARD_DEFAULT_MAX_STEPS;
    this.rateLimitPerSecond = cfg.SWITCHYARD_RATE_LIMIT_PER_SECOND;
    this.rateLimitBurst = cfg.SWITCHYARD_RATE_LIMIT_BURST;
    this.maxActiveRuns = cfg.SWITCHYARD_MAX_ACTIVE_RUNS;
    this.tenantMaxRunning = cfg.SWITCHYARD_TENANT_MAX_RUNNING;
    this.corsOrigins = cfg.SWITCHYARD_CORS_ORIGINS;
    this.storeEmbeddingModel = cfg.SWITCHYARD_STORE_EMBEDDING_MODEL;
    this.webhookAllowHosts = cfg.SWITCHYARD_WEBHOOK_ALLOW_HOSTS;
    this.objectStores = loadConfig(objectStoresEnvSchema, env).SWITCHYARD_OBJECT_STORES;
    this.secretKey = loadConfig(secretEnvSchema, env).SWITCHYARD_SECRET_KEY;
  }
}
