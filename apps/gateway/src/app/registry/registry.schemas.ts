import { z } from 'zod';
import { STRUCTURED_OUTPUT_MODES } from '@switchyard/config';
import { MODEL_CATEGORIES } from '@switchyard/persistence';
import { BusinessIdSchema, TenantWeightSchema } from '@switchyard/contracts';
import { ParserSchema } from './parser.schema';

// Request and response shapes of the model-registry admin API; the OpenAPI description is built
// from these, so they are the single source of both validation and documentation.

const httpUrl = z
  .string()
  .max(2000)
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

export const VENDOR_KINDS = ['openai', 'anthropic', 'ollama'] as const;
export const VENDOR_KEY_STATUSES = ['active', 'quarantined', 'revoked'] as const;
export const CategorySchema = z.enum(MODEL_CATEGORIES);
export const IdSchema = z.string().uuid();
export const StructuredOutputSchema = z
  .enum(STRUCTURED_OUTPUT_MODES)
  .describe(
    'how the model returns structured replies: json_schema (response_format / Ollama format), tool_call (one forced tool call) or prompt (JSON asked for in the prompt text); null = the vendor kind default (openai, ollama: json_schema; anthropic: tool_call)',
  );

export const CreateVendorSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    kind: z.enum(VENDOR_KINDS),
    base_url: httpUrl.optional(),
  })
  .strict();
export type CreateVendor = z.infer<typeof CreateVendorSchema>;

export const CreateVendorKeySchema = z
  .object({
    // Validation messages never quote the value: they end up in responses.
    secret: z
      .string()
      .min(1)
      .max(4096)
      .refine((s) => s.trim() === s, 'must not start or end with whitespace'),
    label: z.string().trim().min(1).max(200).optional(),
    tenant_id: IdSchema.nullable().optional(),
    // Only with a tenant: the key then serves that business of the tenant only.
    business_id: BusinessIdSchema.nullable().optional(),
  })
  .strict()
  .refine((k) => !k.business_id || k.tenant_id, {
    path: ['business_id'],
    message: 'a business-bound key needs the tenant_id of that business',
  });
export type CreateVendorKey = z.infer<typeof CreateVendorKeySchema>;

export const CreateEndpointSchema = z
  .object({
    url: httpUrl,
    categories: z
      .array(CategorySchema)
      .min(1)
      .max(MODEL_CATEGORIES.length)
      .refine((c) => new Set(c).size === c.length, 'must not repeat a category'),
  })
  .strict();
export type CreateEndpoint = z.infer<typeof CreateEndpointSchema>;

// numeric(14,6): at most 8 digits before the point.
const price = z.number().min(0).max(99_999_999);

export const CreateModelSchema = z
  .object({
    vendor_id: IdSchema,
    name: z.string().trim().min(1).max(200),
    category: CategorySchema,
    version: z.string().trim().max(100).default(''),
    context_window: z.number().int().min(1).max(100_000_000).optional(),
    price_per_1k_input: price.default(0),
    price_per_1k_output: price.default(0),
    parser: ParserSchema.optional(),
    structured_output: StructuredOutputSchema.nullable().optional(),
  })
  .strict();
export type CreateModel = z.infer<typeof CreateModelSchema>;

export const PatchModelSchema = z
  .object({
    parser: ParserSchema.nullable().optional(),
    structured_output: StructuredOutputSchema.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'name at least one field to change');
export type PatchModel = z.infer<typeof PatchModelSchema>;

export const ModelListQuerySchema = z.object({ vendor_id: IdSchema.optional() }).strict();

const limit = (max: number) => z.number().int().min(1).max(max).nullable().optional();
export const PatchTenantSchema = z
  .object({
    // null = unlimited.
    token_budget: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    // null = the services' defaults (SWITCHYARD_RATE_LIMIT_*, SWITCHYARD_MAX_ACTIVE_RUNS,
    // SWITCHYARD_TENANT_MAX_RUNNING).
    rate_limit_per_second: limit(1_000_000),
    rate_limit_burst: limit(10_000_000),
    max_active_runs: limit(1_000_000),
    max_running_runs: limit(100_000),
    // The embedding model of the tenant's user memory: a registry model of category embedding;
    // null = the built-in hash-embedding-v1.
    memory_embedding_model: z.string().trim().min(1).max(200).nullable().optional(),
    // The tenant's share of every node service's handler slots against the other tenants with
    // tasks waiting (3 against 1: three steps to one); null = the default, 1.
    weight: TenantWeightSchema.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one field to change' });
export type PatchTenant = z.infer<typeof PatchTenantSchema>;

// ---- responses ----

export const VendorSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  kind: z.enum(VENDOR_KINDS),
  base_url: z.string().nullable(),
  created_at: z.string(),
});
export const VendorKeySchema = z.object({
  id: z.string().uuid(),
  vendor_id: z.string().uuid(),
  label: z.string().nullable(),
  tenant_id: z.string().uuid().nullable(),
  business_id: z.string().nullable(),
  fingerprint: z.string(),
  status: z.enum(VENDOR_KEY_STATUSES),
  status_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const EndpointSchema = z.object({
  id: z.string().uuid(),
  vendor_id: z.string().uuid(),
  url: z.string(),
  categories: z.array(CategorySchema),
  created_at: z.string(),
});
export const ModelSchema = z.object({
  id: z.string().uuid(),
  vendor_id: z.string().uuid(),
  name: z.string(),
  category: CategorySchema,
  version: z.string(),
  context_window: z.number().nullable(),
  price_per_1k_input: z.number(),
  price_per_1k_output: z.number(),
  parser: ParserSchema.nullable(),
  structured_output: StructuredOutputSchema.nullable(),
  created_at: z.string(),
});
export const UsageByModelSchema = z.array(
  z.object({
    model_id: z.string().uuid().nullable(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
    cost: z.number(),
  }),
);
