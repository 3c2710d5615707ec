import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import {
  type AgentConfig,
  AgentConfigSchema,
  describeZodError,
  type RunErrorCode,
} from '@switchyard/contracts';

/** The run's pinned agent configuration is missing or invalid: retrying cannot fix it. */
export class AgentConfigError extends Error {
  readonly retryable = false;
  readonly code = 'invalid_agent_config' satisfies RunErrorCode;
}

/** What a run pinned when it was created: its agent configuration and its tenant. */
export interface RunContext {
  agent: AgentConfig;
  /** The run's tenant (null only for a run row that is gone). */
  tenant_id: string | null;
}

/** The agent configuration and tenant of a run (cached: neither ever changes). */
@Injectable()
export class RunAgentConfig {
  private readonly cache = new LRUCache<string, RunContext>({ max: 10_000 });

  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async forRun(runId: string): Promise<RunContext> {
    const cached = this.cache.get(runId);
    if (cached) {
      return cached;
    }
    const [row] = (await this.ds.query('SELECT agent_config, tenant_id FROM runs WHERE id = $1', [
      runId,
    ])) as {
      agent_config: unknown;
      tenant_id: string | null;
    }[];
    if (!row) {
      throw new AgentConfigError(`run ${runId} not found: its agent configuration cannot be read`);
    }
    // A run created before agents existed pinned nothing: it runs as the default agent.
    const parsed = AgentConfigSchema.safeParse(row.agent_config ?? { name: 'default' });
    if (!parsed.success) {
      // Never swap in another configuration silently: the run fails naming what is wrong.
      throw new AgentConfigError(
        `run ${runId}: its pinned agent configuration is invalid: ${describeZodError(parsed.error)}`,
      );
    }
    const context = { agent: parsed.data, tenant_id: row.tenant_id };
    this.cache.set(runId, context);
    return context;
  }
}
