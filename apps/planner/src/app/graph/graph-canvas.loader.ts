import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  type Canvas,
  type GraphDsl,
  type PuppyWorkflow,
  pinnedGraphDsl,
  runInputsOf,
} from '@switchyard/graph';
import { AgentConfigError, RunAgentConfig } from '../run-agent-config.service';
import { RunsRepository } from '../runs.repository';

/** What a graph run brings: the canvas it pinned, the inputs of Begin's form. */
export interface GraphRun {
  canvas: Canvas;
  inputs?: Record<string, unknown>;
}

/** What a PuppyEngine run brings: the workflow it pinned and the inputs of its blocks. */
export interface PuppyRun {
  workflow: PuppyWorkflow;
  inputs?: Record<string, unknown>;
}

/** A graph run's DSL of either kind, with the run's inputs. */
type LoadedRun = { dsl: GraphDsl; inputs?: Record<string, unknown> };

/**
 * The DSL a graph run pinned and its inputs (read once per run: neither ever changes), within the
 * task's tenant (`tenantId`, taskTenant): whose knowledge the components search is the task's.
 */
@Injectable()
export class GraphCanvasLoader {
  private readonly cache = new LRUCache<string, LoadedRun>({ max: 1_000 });

  constructor(
    @Inject(RunAgentConfig) private readonly configs: RunAgentConfig,
    @Inject(RunsRepository) private readonly runs: RunsRepository,
  ) {}

  /** Which kind of DSL the run's graph agent has. */
  async kindOf(runId: string, tenantId: string): Promise<GraphDsl['kind']> {
    return (await this.load(runId, tenantId)).dsl.kind;
  }

  /** A RAGFlow canvas run. */
  async forRun(runId: string, tenantId: string): Promise<GraphRun> {
    const { dsl, inputs } = await this.load(runId, tenantId);
    if (dsl.kind !== 'ragflow') {
      throw new AgentConfigError(
        `run ${runId}: its graph agent is a PuppyEngine workflow, not a RAGFlow canvas`,
      );
    }
    return { canvas: dsl.canvas, ...(inputs ? { inputs } : {}) };
  }

  /** A PuppyEngine workflow run. */
  async puppyRun(runId: string, tenantId: string): Promise<PuppyRun> {
    const { dsl, inputs } = await this.load(runId, tenantId);
    if (dsl.kind !== 'puppy') {
      throw new AgentConfigError(
        `run ${runId}: its graph agent is a RAGFlow canvas, not a PuppyEngine workflow`,
      );
    }
    return { workflow: dsl.workflow, ...(inputs ? { inputs } : {}) };
  }

  private async load(runId: string, tenantId: string): Promise<LoadedRun> {
    const key = `${tenantId}/${runId}`;
    const cached = this.cache.get(key);
    if (cached) {
      return cached;
    }
    const { agent } = await this.configs.forRun(runId, tenantId);
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
    const row = await this.runs.graphInputsOf(runId, tenantId);
    const inputs = row ? runInputsOf(row) : undefined;
    const run: LoadedRun = { dsl, ...(inputs ? { inputs } : {}) };
    this.cache.set(key, run);
    return run;
  }
}
