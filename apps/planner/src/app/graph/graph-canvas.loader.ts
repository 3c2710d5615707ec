import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import {
  type Canvas,
  type GraphDsl,
  type PuppyWorkflow,
  pinnedGraphDsl,
  runInputsOf,
} from '@switchyard/graph';
import { AgentConfigError, RunAgentConfig } from '../run-agent-config.service';

/** What a graph run brings: the canvas it pinned, the inputs of Begin's form, its tenant. */
export interface GraphRun {
  canvas: Canvas;
  inputs?: Record<string, unknown>;
  /** Whose knowledge a Retrieval searches. */
  tenantId: string;
}

/** What a PuppyEngine run brings: the workflow it pinned and the inputs of its blocks. */
export interface PuppyRun {
  workflow: PuppyWorkflow;
  inputs?: Record<string, unknown>;
  /** Whose collections a search edge searches. */
  tenantId: string;
}

/** A graph run's DSL of either kind, with the run's inputs. */
type LoadedRun = { dsl: GraphDsl; inputs?: Record<string, unknown>; tenantId: string };

/** The DSL a graph run pinned and its inputs (read once per run: neither ever changes). */
@Injectable()
export class GraphCanvasLoader {
  private readonly cache = new LRUCache<string, LoadedRun>({ max: 1_000 });

  constructor(
    @Inject(RunAgentConfig) private readonly configs: RunAgentConfig,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  /** Which kind of DSL the run's graph agent has. */
  async kindOf(runId: string): Promise<GraphDsl['kind']> {
    return (await this.load(runId)).dsl.kind;
  }

  /** A RAGFlow canvas run. */
  async forRun(runId: string): Promise<GraphRun> {
    const { dsl, inputs, tenantId } = await this.load(runId);
    if (dsl.kind !== 'ragflow') {
      throw new AgentConfigError(
        `run ${runId}: its graph agent is a PuppyEngine workflow, not a RAGFlow canvas`,
      );
    }
    return { canvas: dsl.canvas, tenantId, ...(inputs ? { inputs } : {}) };
  }

  /** A PuppyEngine workflow run. */
  async puppyRun(runId: string): Promise<PuppyRun> {
    const { dsl, inputs, tenantId } = await this.load(runId);
    if (dsl.kind !== 'puppy') {
      throw new AgentConfigError(
        `run ${runId}: its graph agent is a RAGFlow canvas, not a PuppyEngine workflow`,
      );
    }
    return { workflow: dsl.workflow, tenantId, ...(inputs ? { inputs } : {}) };
  }

  private async load(runId: string): Promise<LoadedRun> {
    const cached = this.cache.get(runId);
    if (cached) {
      return cached;
    }
    const { agent } = await this.configs.forRun(runId);
    if (agent.kind !== 'graph' || !agent.dsl) {
      throw new AgentConfigError(`run ${runId} is not a graph agent's run: it has no canvas`);
    }
    let dsl: GraphDsl;
    try {
      dsl = pinnedGraphDsl(agent.dsl);
    } catch (err) {
      // Validated when saved; a pinned DSL that no longer validates cannot run.
      throw new AgentConfigError(`run ${runId}: its graph DSL is invalid: ${(err as Error).message}`);
    }
    const [row] = (await this.ds.query(
      `SELECT input->'inputs' AS inputs, input->>'inputs_json' AS inputs_json, tenant_id::text AS tenant_id
       FROM runs WHERE id = $1`,
      [runId],
    )) as { inputs: unknown; inputs_json: string | null; tenant_id: string }[];
    const inputs = row ? runInputsOf(row) : undefined;
    const run: LoadedRun = { dsl, tenantId: row?.tenant_id ?? '', ...(inputs ? { inputs } : {}) };
    this.cache.set(runId, run);
    return run;
  }
}
