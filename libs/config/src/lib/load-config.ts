import { z } from 'zod';

/** Start-up stops with this when the environment is wrong; the message names every bad variable. */
export class ConfigException extends Error {
  readonly retryable = false;
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigException';
  }
}

/** Validates `env` against `schema` once, at boot; the result is the only place config is read from. */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigException(
      parsed.error.issues.map((i) => {
        const name = i.path.join('.');
        const value = env[name];
        const shown = value === undefined ? 'not set' : isSecret(name) ? 'set (hidden)' : `"${value}"`;
        return `${name} (${shown}): ${i.message}`;
      }),
    );
  }
  return parsed.data;
}

const isSecret = (name: string): boolean => /KEY|TOKEN|SECRET|PASSWORD/i.test(name);

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with scheme ${protocols.join(' or ')}`,
  );

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Variables every service reads. */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).default('postgres://postgres@127.0.0.1:5432/switchyard'),
  // Connections of this service's Postgres pool; unset, each service's own default (5 to 20).
  SWITCHYARD_DB_POOL_SIZE: z.coerce.number().int().min(1).max(500).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  NATS_URL: z
    .string()
    .default('nats://127.0.0.1:4222')
    .refine((v) => v.split(',').every((s) => /^(nats|tls|ws|wss):\/\/[^\s]+$/.test(s.trim())), {
      message: 'must be a comma-separated list of nats:// URLs',
    }),
  // Copies JetStream keeps of every stream, KV bucket and consumer the services create: 1 on a
  // single server; 3 (or 5) on a JetStream cluster of that many servers, to survive losing one
  // (or two). An existing stream or bucket is brought to this count at start-up.
  SWITCHYARD_NATS_REPLICAS: z
    .enum(['1', '3', '5'], {
      error: 'must be 1, 3 or 5 (replicas of the JetStream streams; 3 or 5 need a cluster)',
    })
    .default('1')
    .transform(Number),
  // A task's deadline: how long a node may take before the task counts as lost.
  SWITCHYARD_TASK_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  // JetStream redelivers a message not acked (nor marked in progress) within this time.
  SWITCHYARD_ACK_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  // On SIGTERM: how long in-flight tasks may take to finish before they are handed back (nak) for
  // another replica; keep it below the pod's termination grace period.
  SWITCHYARD_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(45_000),
  // Fair dispatch: tasks a node service process holds beyond its handler slots, to start them
  // fairly across tenants (by weight) rather than first in, first out; 0 turns it off.
  SWITCHYARD_FAIR_PREFETCH: z.coerce.number().int().min(0).max(10_000).default(256),
  // Fair dispatch: while a node service's event loop is busier than this share of the time, it
  // starts fewer tasks at once (held tasks then start in fair order as it has room); 1 = never.
  SWITCHYARD_FAIR_LOOP_BUSY: z.coerce.number().min(0.1).max(1).default(0.95),
  // The thread states a process keeps in memory (the orchestrator, each node service), in MiB of
  // their JSON (the heap holds some 2–3× that); least recently used threads go first.
  SWITCHYARD_STATE_CACHE_MB: z.coerce.number().int().min(1).max(65_536).default(128),
});
export type BaseEnv = z.infer<typeof baseEnvSchema>;

/**
 * How a model returns structured replies: `json_schema` (OpenAI `response_format`, Ollama `format`,
 * Anthropic `output_config`), `tool_call` (one forced tool call), or `prompt` (JSON asked for in the
 * prompt text, for models with no native mechanism).
 */
export const STRUCTURED_OUTPUT_MODES = ['json_schema', 'tool_call', 'prompt'] as const;
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** Variables of the services that call an LLM. */
/**
 * How long a replica keeps a tenant's settings it read (its memory embedding model, its list of
 * collections) before reading them again: a change applies within this (milliseconds).
 */
export const tenantCacheEnvSchema = z.object({
  SWITCHYARD_TENANT_CACHE_TTL_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
});

export const llmEnvSchema = z.object({
  SWITCHYARD_LLM_BASE_URL: url(['http:', 'https:']).default('http://127.0.0.1:8090/v1'),
  SWITCHYARD_LLM_API_KEY: z.string().min(1).default('scripted'),
  SWITCHYARD_LLM_MODEL: z.string().min(1).default('scripted'),
  SWITCHYARD_LLM_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  SWITCHYARD_LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  // How the env-seeded default model returns structured replies; unset leaves the registry's value
  // (a new model gets its vendor kind's default).
  SWITCHYARD_LLM_STRUCTURED_OUTPUT: z
    .enum(STRUCTURED_OUTPUT_MODES, {
      error: `must be one of ${STRUCTURED_OUTPUT_MODES.join(', ')} (json_schema: response_format / format; tool_call: a forced tool call; prompt: JSON asked for in the prompt)`,
    })
    .optional(),
});
export type LlmEnv = z.infer<typeof llmEnvSchema>;

/** `loadConfig` for a process entry point: a bad environment ends the process (exit 78) with the message. */
export function loadConfigOrExit<S extends z.ZodObject>(schema: S, service: string): z.infer<S> {
  return configOrExit(service, () => loadConfig(schema));
}

/** Runs `read` at a process entry point: a ConfigException ends the process (exit 78, EX_CONFIG) with its message. */
export function configOrExit<T>(service: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigException) {
      process.stderr.write(`${service}: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
