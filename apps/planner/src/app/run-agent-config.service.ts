import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { type AgentConfig, AgentConfigSchema } from '@switchyard/contracts';

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
    const parsed = AgentConfigSchema.safeParse(row?.agent_config ?? { name: 'default' });
    const agent = parsed.success ? parsed.data : AgentConfigSchema.parse({ name: 'default' });
    const context = { agent, tenant_id: row?.tenant_id ?? null };
    if (row) {
      this.cache.set(runId, context);
    }
    return context;
  }
}
