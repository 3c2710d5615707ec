import { z } from 'zod';
import type { LlmEnv } from '@switchyard/config';

/** Tuning of the registry-backed clients (all optional). */
export const registryEnvSchema = z.object({
  /** How long registry rows (vendors, keys, models) are reused before they are read again. */
  SWITCHYARD_MODEL_REGISTRY_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /**
   * How long a read of the registry's revision stands for the calls that start after it (0: every
   * call reads it). The gateway holds each registry write's response this long, so a call that
   * starts after the response still sees the write. The same value in every service.
   */
  SWITCHYARD_MODEL_REGISTRY_LEASE_MS: z.coerce.number().int().min(0).max(10_000).default(100),
  /** A key answered 429 without Retry-After rests this long. */
  SWITCHYARD_LLM_COOLDOWN_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /** Longest a call waits for a rate-limited key when every key is resting (beyond: retryable error). */
  SWITCHYARD_LLM_MAX_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
});
export type RegistryEnv = z.infer<typeof registryEnvSchema>;

export interface ModelsConfig {
  llm: LlmEnv;
  registry: RegistryEnv;
  /** SWITCHYARD_SECRET_KEY: opens the sealed vendor keys. */
  secretKey: string;
}
