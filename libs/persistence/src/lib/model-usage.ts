import type { MeteredCall } from '@switchyard/contracts';
import type { GatheredWrite } from './locked-read';

/** A tenant's budget and usage after a write of its calls (`tokens_used` includes them). */
export interface TenantTokens {
  id: string;
  budget: number | null;
  used: number;
}

/**
 * Writes metered calls ($1: a JSON array of MeteredCall) — the calls not written before (by
 * `call_id`), then each tenant's `tokens_used` raised by the tokens of the rows it inserted — and
 * answers those tenants' budgets and usage. Every writer of calls uses this one statement: a node
 * service for the calls no delta carries (libs/models UsageMeter), the orchestrator's step for the
 * calls a delta carries (one statement for a whole group of steps: `USAGE_WRITE`).
 *
 * - Exactly once: a call arriving again (a delta delivered twice, a call its node wrote while its
 *   delta was also on the way) inserts nothing and adds nothing.
 * - No deadlock between writers: each takes the calls' index entries in `call_id` order (time-ordered
 *   ids, so rows are also numbered in the order the calls were made) and then the tenants' rows in
 *   id order — two writers of overlapping calls wait for one another, never
 *   in a cycle. The tenants are locked `FOR NO KEY UPDATE` (what the UPDATE takes anyway), which
 *   leaves their rows free for other tables' foreign-key checks (a run inserted for the tenant).
 * - Cannot fail on its data: a model or key deleted since the call leaves NULL in the row (the
 *   call is still billed) rather than break the foreign key and lose the row.
 */
const RECORD_USAGE_SQL = `WITH batch AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(call_id uuid, tenant_id uuid, business_id text,
    run_id uuid, task_id uuid, node text, attempt integer, model_id uuid, key_id uuid,
    prompt_tokens integer, completion_tokens integer, total_tokens integer, cost numeric)
), inserted AS (
  INSERT INTO model_usage (call_id, tenant_id, business_id, run_id, task_id, node, attempt, model_id,
                           key_id, prompt_tokens, completion_tokens, total_tokens, cost)
  SELECT b.call_id, b.tenant_id, b.business_id, b.run_id, b.task_id, b.node, b.attempt,
         (SELECT m.id FROM models m WHERE m.id = b.model_id),
         (SELECT k.id FROM vendor_keys k WHERE k.id = b.key_id),
         b.prompt_tokens, b.completion_tokens, b.total_tokens, b.cost
    FROM batch b ORDER BY b.call_id
  ON CONFLICT (call_id) DO NOTHING
  RETURNING tenant_id, total_tokens
), sums AS (
  SELECT tenant_id, sum(total_tokens)::bigint AS tokens FROM inserted GROUP BY tenant_id
), locked AS MATERIALIZED (
  SELECT t.id FROM tenants t WHERE t.id IN (SELECT tenant_id FROM sums) ORDER BY t.id FOR NO KEY UPDATE
)
UPDATE tenants t SET tokens_used = t.tokens_used + s.tokens
  FROM sums s JOIN locked l ON l.id = s.tenant_id WHERE t.id = s.tenant_id
RETURNING t.id, t.token_budget::float8 AS budget, t.tokens_used::float8 AS used`;

/**
 * The calls of a transaction's steps, written once with its COMMIT (`gatherWrite`): one statement
 * for a whole group commit, so its tenants are locked once each and in order.
 */
export const USAGE_WRITE: GatheredWrite<MeteredCall> = {
  sql: RECORD_USAGE_SQL,
  params: (calls) => [JSON.stringify(calls)],
};
