import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { LlmCallException } from './llm-errors';
import { ModelsRepository } from './models.repository';

/** What an LLM call needs to know about its run: whose it is, and the models its agent pinned. */
export interface RunScope {
  tenant_id: string;
  /** The run's `metadata.business_id`: business-bound keys of the tenant serve only that business. */
  business_id?: string;
  /** Role → model name or id (the run's pinned `agent_config.models`). */
  models: Record<string, string | undefined>;
}

// Only the models of the pinned config matter here; the rest is the gateway's to validate.
const PinnedModelsSchema = z.looseObject({ models: z.record(z.string(), z.string()).nullish() });

/** Reads a run's tenant and pinned agent models once (both never change for a run). */
export class RunScopes {
  private readonly cache = new LRUCache<string, RunScope>({ max: 10_000 });

  private readonly runs: ModelsRepository;

  constructor(ds: DataSource) {
    this.runs = new ModelsRepository(ds);
  }

  /** The run's scope, read within `tenantId` (the task's) when given: another tenant's run is none. */
  async forRun(runId: string, tenantId?: string): Promise<RunScope | undefined> {
    const key = `${tenantId ?? ''}:${runId}`;
    const hit = this.cache.get(key);
    if (hit) {
      return hit;
    }
    const row = await this.runs.runScope(runId, tenantId);
    if (!row) {
      return undefined;
    }
    const parsed = PinnedModelsSchema.safeParse(row.agent_config ?? {});
    if (!parsed.success) {
      throw new LlmCallException(
        `run ${runId}: agent_config.models is not a map of role to model name`,
        'invalid_agent_config',
        false,
      );
    }
    const scope: RunScope = {
      tenant_id: row.tenant_id,
      ...(row.business_id ? { business_id: row.business_id } : {}),
      models: parsed.data.models ?? {},
    };
    this.cache.set(key, scope);
    return scope;
  }
}
