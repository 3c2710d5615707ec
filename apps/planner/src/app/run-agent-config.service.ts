import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  type AgentConfig,
  AgentConfigSchema,
  describeZodError,
  type RunErrorCode,
} from '@switchyard/contracts';
import { RunsRepository } from './runs.repository';

/** The run's pinned agent configuration is missing or invalid: retrying cannot fix it. */
export class AgentConfigError extends Error {
  readonly retryable = false;
  readonly code = 'invalid_agent_config' satisfies RunErrorCode;
}

/** What a run pinned when it was created, and the tenant its task works for. */
export interface RunContext {
  agent: AgentConfig;
  /** The task's tenant (taskTenant): the run was read within it. */
  tenant_id: string;
}

/** The agent configuration of a run, read within the task's tenant (cached: it never changes). */
@Injectable()
export class RunAgentConfig {
  private readonly cache = new LRUCache<string, RunContext>({ max: 10_000 });

  constructor(@Inject(RunsRepository) private readonly runs: RunsRepository) {}

  async forRun(runId: string, tenantId: string): Promise<RunContext> {
    const key = `${tenantId}/${runId}`;
    const cached = this.cache.get(key);
    if (cached) {
      return cached;
    }
    const row = await this.runs.agentConfigOf(runId, tenantId);
    if (!row) {
      throw new AgentConfigError(
        `run ${runId} not found in its task's tenant: its agent configuration cannot be read`,
      );
    }
    // A run created before agents existed pinned nothing: it runs as the default agent.
    const parsed = AgentConfigSchema.safeParse(row.agent_config ?? { name: 'default' });
    if (!parsed.success) {
      // Never swap in another configuration silently: the run fails naming what is wrong.
      throw new AgentConfigError(
        `run ${runId}: its pinned agent configuration is invalid: ${describeZodError(parsed.error)}`,
      );
    }
    const context = { agent: parsed.data, tenant_id: tenantId };
    this.cache.set(key, context);
    return context;
  }
}
