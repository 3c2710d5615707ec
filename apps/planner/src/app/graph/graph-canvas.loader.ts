import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { type Canvas, GraphException, validateCanvas } from '@switchyard/graph';
import { AgentConfigError, RunAgentConfig } from '../run-agent-config.service';

/** The canvas a graph run pinned (parsed once per run: the pinned configuration never changes). */
@Injectable()
export class GraphCanvasLoader {
  private readonly cache = new LRUCache<string, Canvas>({ max: 1_000 });

  constructor(@Inject(RunAgentConfig) private readonly configs: RunAgentConfig) {}

  async forRun(runId: string): Promise<Canvas> {
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
      canvas = validateCanvas(agent.dsl);
    } catch (err) {
      // Validated when saved; a pinned DSL that no longer validates cannot run.
      throw new AgentConfigError(
        `run ${runId}: its graph DSL is invalid: ${(err as GraphException).message}`,
      );
    }
    this.cache.set(runId, canvas);
    return canvas;
  }
}
