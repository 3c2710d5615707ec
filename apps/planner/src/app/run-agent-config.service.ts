import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { type AgentConfig, AgentConfigSchema } from '@switchyard/contracts';

/** The agent configuration a run pinned when it was created (cached: it never changes). */
@Injectable()
export class RunAgentConfig {
  private readonly cache = new LRUCache<string, AgentConfig>({ max: 10_000 });

  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async forRun(runId: string): Promise<AgentConfig> {
    const cached = this.cache.get(runId);
    if (cached) {
      return cached;
    }
    const [row] = (await this.ds.query('SELECT agent_config FROM runs WHERE id = $1', [runId])) as {
      agent_config: unknown;
    }[];
    const parsed = AgentConfigSchema.safeParse(row?.agent_config ?? { name: 'default' });
    const config = parsed.success ? parsed.data : AgentConfigSchema.parse({ name: 'default' });
    this.cache.set(runId, config);
    return config;
  }
}
