import { Inject, Injectable } from '@nestjs/common';
import { componentIdOfNode } from '@switchyard/contracts';
import { componentTimeoutMs, runComponentStep } from '@switchyard/graph';
import { type NodeInput, type NodeOutput, taskTenant } from '@switchyard/worker';
import { GraphCanvasLoader } from './graph-canvas.loader';
import { GraphComponents } from './graph-components';
import { GraphNodesRegistrar } from '@switchyard/platform';
import { GraphProvidersConfig } from './graph-providers.config';

/**
 * Runs one `graph.<component>` task (libs/graph `runComponentStep`) on the canvas the run pinned,
 * with every component this service implements, and registers the successors it names so the
 * orchestrator can route to them — routing stays the orchestrator's, on `next`.
 */
@Injectable()
export class GraphComponentRunner {
  constructor(
    @Inject(GraphCanvasLoader) private readonly canvases: GraphCanvasLoader,
    @Inject(GraphComponents) private readonly components: GraphComponents,
    @Inject(GraphNodesRegistrar) private readonly registrar: GraphNodesRegistrar,
    @Inject(GraphProvidersConfig) private readonly config: GraphProvidersConfig,
  ) {}

  async execute(input: NodeInput): Promise<NodeOutput> {
    const { task } = input;
    const tenantId = taskTenant(task);
    const { canvas, inputs } = await this.canvases.forRun(task.run_id, tenantId);
    const component = canvas.components[componentIdOfNode(task.node) ?? ''];
    const out = await runComponentStep(
      {
        state: input.state,
        node: task.node,
        canvas,
        ...(inputs ? { inputs } : {}),
        tenantId,
        runId: task.run_id,
        taskId: task.task_id,
        ...(task.priority ? { priority: task.priority } : {}),
        signal: input.signal,
        lastDelivery: input.lastDelivery ?? false,
        emitToken: input.emitToken,
        budgetMs: componentTimeoutMs(component?.name ?? '', this.config.timeouts),
      },
      (ctx) => this.components.run(ctx),
    );
    await this.registrar.ensure(out.next.filter((n) => componentIdOfNode(n) !== undefined));
    return out;
  }
}
