import type { z } from 'zod';
import type { TenantView, UsagePage, UsageRowView } from '@switchyard/contracts';
import type { EndpointSchema, ModelSchema, VendorKeySchema, VendorSchema } from './registry.schemas';
import { encodeUsageCursor } from './usage-cursor';

// Rows as pg returns them (timestamptz → Date, numeric and bigint → string) and their API views.

const iso = (d: Date | string) => new Date(d).toISOString();
/** numeric/bigint columns arrive as strings; every value here is far below 2^53. */
const num = (v: string | number) => Number(v);

export interface VendorRow {
  id: string;
  name: string;
  kind: 'openai' | 'anthropic' | 'ollama';
  base_url: string | null;
  created_at: Date;
}
export const vendorView = (r: VendorRow): z.infer<typeof VendorSchema> => ({
  ...r,
  created_at: iso(r.created_at),
});

/** Never includes `secret_sealed`: the column list below is what every key query selects. */
export interface VendorKeyRow {
  id: string;
  vendor_id: string;
  label: string | null;
  tenant_id: string | null;
  business_id: string | null;
  fingerprint: string;
  status: 'active' | 'quarantined' | 'revoked';
  status_reason: string | null;
  created_at: Date;
  updated_at: Date;
}
export const vendorKeyView = (r: VendorKeyRow): z.infer<typeof VendorKeySchema> => ({
  id: r.id,
  vendor_id: r.vendor_id,
  label: r.label,
  tenant_id: r.tenant_id,
  business_id: r.business_id,
  fingerprint: r.fingerprint,
  status: r.status,
  status_reason: r.status_reason,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export interface EndpointRow {
  id: string;
  vendor_id: string;
  url: string;
  categories: z.infer<typeof EndpointSchema>['categories'];
  created_at: Date;
}
export const endpointView = (r: EndpointRow): z.infer<typeof EndpointSchema> => ({
  ...r,
  created_at: iso(r.created_at),
});

export interface ModelRow {
  id: string;
  vendor_id: string;
  name: string;
  category: z.infer<typeof ModelSchema>['category'];
  version: string;
  context_window: number | null;
  price_per_1k_input: string;
  price_per_1k_output: string;
  parser: z.infer<typeof ModelSchema>['parser'];
  structured_output: z.infer<typeof ModelSchema>['structured_output'];
  created_at: Date;
}
export const modelView = (r: ModelRow): z.infer<typeof ModelSchema> => ({
  ...r,
  price_per_1k_input: num(r.price_per_1k_input),
  price_per_1k_output: num(r.price_per_1k_output),
  created_at: iso(r.created_at),
});

export interface UsageRow {
  id: string;
  tenant_id: string;
  business_id: string | null;
  run_id: string | null;
  action_id: number | null;
  model_id: string | null;
  key_id: string | null;
  node: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: string;
  created_at: Date;
  /** created_at as Postgres text: exact to the microsecond, for the page cursor. */
  created_at_text: string;
}
export const usageView = (r: UsageRow): UsageRowView => ({
  id: r.id,
  tenant_id: r.tenant_id,
  business_id: r.business_id,
  run_id: r.run_id,
  action_id: r.action_id,
  model_id: r.model_id,
  key_id: r.key_id,
  node: r.node,
  prompt_tokens: r.prompt_tokens,
  completion_tokens: r.completion_tokens,
  total_tokens: r.total_tokens,
  cost: num(r.cost),
  created_at: iso(r.created_at),
});

/**
 * A page of `GET /v1/admin/usage` from up to `limit + 1` rows: the extra row only says that more
 * follow, and the page's last row is where the next one starts.
 */
export function usagePageView(rows: readonly UsageRow[], limit: number): UsagePage {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    usage: page.map(usageView),
    next_cursor:
      rows.length > limit && last
        ? encodeUsageCursor({ created_at: last.created_at_text, id: last.id })
        : null,
  };
}

export interface TenantRow {
  id: string;
  name: string;
  token_budget: string | null;
  tokens_used: string;
  created_at: Date;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
  max_active_runs: number | null;
  max_running_runs: number | null;
  memory_embedding_model: string | null;
  /** double precision (pg parses it to a number); 1 by default. */
  weight: number;
}
export const tenantView = (r: TenantRow): TenantView => ({
  id: r.id,
  name: r.name,
  token_budget: r.token_budget === null ? null : num(r.token_budget),
  tokens_used: num(r.tokens_used),
  created_at: iso(r.created_at),
  rate_limit_per_second: r.rate_limit_per_second,
  rate_limit_burst: r.rate_limit_burst,
  max_active_runs: r.max_active_runs,
  max_running_runs: r.max_running_runs,
  memory_embedding_model: r.memory_embedding_model,
  weight: r.weight,
});
