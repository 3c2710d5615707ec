import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { type Canvas, GraphException, validateCanvas } from '@switchyard/graph';
import { AgentConfigError, RunAgentConfig } from '../run-agent-config.service';

/** What a graph run brings: the canvas it pinned, the inputs of Begin's form, its tenant. */
export interface GraphRun {
  canvas: Canvas;
  inputs?: Record<string, unknown>;
  /** Whose knowledge a Retrieval searches. */
  tenantId: string;
}

/** The canvas a graph run pinned and its inputs (read once per run: neither ever changes). */
@Injectable()
export class GraphCanvasLoader {
  private readonly cache = new LRUCache<string, GraphRun>({ max: 1_000 });

  constructor(
    @Inject(RunAgentConfig) private readonly configs: RunAgentConfig,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  async forRun(runId: string): Promise<GraphRun> {
    const cached = this.cache.get(runId);
    if (cached) {
      return cached;
    }
    const { agent } = await this.configs.forRun(runId);
    if (agent.kind !== 'graph' || !agent.dsl) {
      throw new AgentConfigError(`run ${runId} is not a graph agent's run: it has no canvas`);
    }
    let canvas: Canvas;
    try {
      // Stored as JSON text, which keeps the author's key order (see AgentConfigSchema).
      canvas = validateCanvas(typeof agent.dsl === 'string' ? (JSON.parse(agent.dsl) as unknown) : agent.dsl);
    } catch (err) {
      // Validated when saved; a pinned DSL that no longer validates cannot run.
      throw new AgentConfigError(
        `run ${runId}: its graph DSL is invalid: ${(err as GraphException).message}`,
      );
    }
    const [row] = (await this.ds.query(
      `SELECT input->'inputs' AS inputs, tenant_id::text AS tenant_id FROM runs WHERE id = $1`,
      [runId],
    )) as { inputs: unknown; tenant_id: string }[];
    const inputs = row?.inputs;
    const run: GraphRun = {
      canvas,
      tenantId: row?.tenant_id ?? '',
      ...(inputs && typeof inputs === 'object' && !Array.isArray(inputs)
        ? { inputs: inputs as Record<string, unknown> }
        : {}),
    };
    this.cache.set(runId, run);
    return run;
  }
}
