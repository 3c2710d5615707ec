import { z } from 'zod';
import { BusinessIdSchema } from '../user-context';

// The HTTP shapes of the admin routes the client calls (/v1/admin/tenants, /v1/admin/usage;
// docs/api.md), shared by the gateway and @switchyard/client.

/** `POST /v1/admin/tenants`. */
export const CreateTenantSchema = z.object({ name: z.string().trim().min(1).max(200) }).strict();

/** `POST /v1/admin/tenants/:id/keys`. */
export const CreateKeySchema = z
  .object({ label: z.string().max(200).optional() })
  .strict()
  .default({});

/** tenants.weight: > 0 and ≤ 1000 (the column's CHECK); 1 by default. */
export const TENANT_WEIGHT_MAX = 1000;
export const TenantWeightSchema = z
  .number()
  .gt(0)
  .max(TENANT_WEIGHT_MAX)
  .describe(
    "the tenant's share of every node service's handler slots when several tenants have tasks waiting (3 against 1: three of every four steps); 1 by default",
  );

/** A tenant as the admin routes show it, with its budget, limits, memory model and weight. */
export const TenantSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  token_budget: z.number().int().nullable(),
  tokens_used: z.number().int(),
  rate_limit_per_second: z.number().int().nullable(),
  rate_limit_burst: z.number().int().nullable(),
  max_active_runs: z.number().int().nullable(),
  max_running_runs: z.number().int().nullable(),
  memory_embedding_model: z.string().nullable(),
  weight: TenantWeightSchema,
  created_at: z.string(),
});

/** An API key of a tenant, never its secret (`GET …/keys`, `DELETE …/keys/:key_id`). */
export const ApiKeySchema = z.object({
  id: z.string().uuid(),
  prefix: z.string(),
  label: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});

/** The answer to `POST /v1/admin/tenants/:id/keys`: the key itself is shown here only. */
export const CreatedApiKeySchema = ApiKeySchema.extend({ key: z.string() });

/** `GET /v1/admin/usage`: metered model calls, oldest first; `cursor` is the previous page's `next_cursor`. */
export const UsageQuerySchema = z
  .object({
    run_id: z.string().uuid().optional(),
    tenant_id: z.string().uuid().optional(),
    business_id: BusinessIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: z.string().max(200).optional(),
  })
  .strict();

/** One metered model call. */
export const UsageRowSchema = z.object({
  id: z.string(),
  tenant_id: z.string().uuid(),
  business_id: z.string().nullable(),
  run_id: z.string().uuid().nullable(),
  action_id: z.number().int().nullable().describe('state_deltas.version of the action this call served'),
  model_id: z.string().uuid().nullable(),
  key_id: z.string().uuid().nullable(),
  node: z.string().nullable(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost: z.number(),
  created_at: z.string(),
});

export const UsagePageSchema = z.object({
  usage: z.array(UsageRowSchema),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null = no more rows'),
});
export type TenantView = z.infer<typeof TenantSchema>;
export type ApiKeyView = z.infer<typeof ApiKeySchema>;
export type CreatedApiKeyView = z.infer<typeof CreatedApiKeySchema>;
export type UsageQuery = z.infer<typeof UsageQuerySchema>;
export type UsageRowView = z.infer<typeof UsageRowSchema>;
export type UsagePage = z.infer<typeof UsagePageSchema>;
