import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  AgentConfigSchema,
  type RuntimeState,
  type StateDelta,
  nodeDelta,
  componentIdOfNode,
} from '@switchyard/contracts';
import {
  type Canvas,
  type ComponentStepOutput,
  ENTRY_RECORD,
  type PuppyWorkflow,
  pureComponent,
  puppyFailure,
  purePuppyEdge,
  runComponentStep,
  runPuppyEdgeStep,
  pureEdgeEffect,
  pinnedGraphDsl,
  runInputsOf,
} from '@switchyard/graph';
import { GraphNodesRegistrar } from '@switchyard/platform';
import type { PatchGrants } from '@switchyard/state';
import { OrchestratorConfig } from './orchestrator.config';
import type { RunRow, TaskRow } from './run-row';
import { inlineRunRow } from './step.repository';
import type { StepSql } from '@switchyard/persistence';

/**
 * A graph run's pinned canvas and Begin inputs, or its PuppyEngine workflow, as the planner reads
 * them (GraphCanvasLoader).
 */
export type InlineRun = { canvas: Canvas; inputs?: Record<string, unknown> } | { workflow: PuppyWorkflow };

/** A chain of inline steps in one transaction: how far it went (to bound it), what it will write. */
export interface InlineChain {
  steps: number;
  startedAt: number;
  /** The chain's task rows and log rows so far, written with the statement that ends it. */
  pending?: { tasks: TaskRow[]; logs: unknown[][] };
}

/** The grants of `node` in a run's loaded canvas (none in a PuppyEngine workflow). */
export function grantsOf(loaded: InlineRun | { none: true }, node: string): PatchGrants {
  if (!('canvas' in loaded)) {
    return {};
  }
  const component = loaded.canvas.components[componentIdOfNode(node) ?? ''];
  return component?.name === 'VariableAssigner' ? { assignsOutputs: true } : {};
}

// Never aborted: a pure component does no I/O and returns at once.
const NEVER = new AbortController().signal;

/**
 * Runs pure graph components (libs/graph PURE_COMPONENTS) inside the orchestrator's step
 * transaction instead of a JetStream round trip to the planner: the same code (`runComponentStep`)
 * on the same state, so the action, its `next` and the routing are those the planner would have
 * produced — only the hop disappears (docs/architecture.md, "Where a node runs"). A run whose canvas
 * cannot be read here is left to the planner, which reports what is wrong with it.
 */
@Injectable()
export class InlineNodes {
  /** Per run: its canvas or workflow, or none when it is not a graph run (read once per run). */
  private readonly runs = new LRUCache<string, InlineRun | { none: true }>({ max: 1_000 });

  constructor(
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
    @Inject(GraphNodesRegistrar) private readonly registrar: GraphNodesRegistrar,
  ) {}

  /** Whether another inline step may join this transaction's chain. */
  mayChain(chain: InlineChain): boolean {
    const { enabled, maxChain, maxMs } = this.config.inline;
    return enabled && chain.steps < maxChain && performance.now() - chain.startedAt < maxMs;
  }

  /** The run's canvas when every one of `tasks` is a pure component of it; else undefined. */
  async canvasFor(m: StepSql, run: RunRow, tasks: readonly TaskRow[]): Promise<InlineRun | undefined> {
    if (tasks.some((t) => componentIdOfNode(t.node) === undefined)) {
      return undefined;
    }
    const loaded = await this.load(m, run.id);
    if ('none' in loaded) {
      return undefined;
    }
    const pure = tasks.every((t) => {
      const id = componentIdOfNode(t.node) ?? '';
      if ('workflow' in loaded) {
        return purePuppyEdge(loaded.workflow, id);
      }
      const component = loaded.canvas.components[id];
      return component !== undefined && pureComponent(component.name) !== undefined;
    });
    return pure ? loaded : undefined;
  }

  /**
   * The delta task `task` answers with on `state` (the state at its step's start), as a node
   * service would send it; its successors are registered so the step after can route to them.
   */
  async run(run: RunRow, loaded: InlineRun, state: RuntimeState, task: TaskRow): Promise<StateDelta> {
    const startedAt = new Date().toISOString();
    if ('workflow' in loaded) {
      const outputs: Record<string, unknown> = state.graph?.outputs ?? {};
      if (!outputs[ENTRY_RECORD]) {
        // As the planner answers it (PuppyWorkflowRunner): the run fails, naming the node.
        const failed = puppyFailure(
          'the workflow was not opened by graph.begin',
          task.node,
          outputs,
          loaded.workflow,
        );
        return nodeDelta(task.node, failed, { startedAt, attempt: 1 });
      }
      // A pure edge's failure (a GraphException) settles it as failed: never retryable.
      const step = await runPuppyEdgeStep(
        loaded.workflow,
        outputs,
        componentIdOfNode(task.node) ?? '',
        pureEdgeEffect,
        true,
      );
      await this.registrar.ensure(step.successors);
      return nodeDelta(task.node, step.answer, { startedAt, attempt: 1 });
    }
    const out: ComponentStepOutput = await runComponentStep(
      {
        state,
        node: task.node,
        canvas: loaded.canvas,
        ...(loaded.inputs ? { inputs: loaded.inputs } : {}),
        tenantId: run.tenant_id,
        runId: run.id,
        taskId: task.id,
        priority: run.priority,
        signal: NEVER,
        lastDelivery: true,
        emitToken: () => Promise.resolve(),
      },
      (ctx) => {
        const pure = pureComponent(ctx.component.name);
        if (!pure) {
          // canvasFor checked every task's component: this would be a bug, and fails the step.
          throw new Error(`component ${ctx.component.id} (${ctx.component.name}) is not pure`);
        }
        return Promise.resolve(pure(ctx));
      },
    );
    await this.registrar.ensure(out.next.filter((n) => componentIdOfNode(n) !== undefined));
    // As a node service does: a component's bug fails the run with a clear message.
    return nodeDelta(task.node, out, { startedAt, attempt: 1 });
  }

  /**
   * What `node` may write beyond its allow-list (libs/state PatchGrants): a canvas's
   * VariableAssigner sets other components' outputs. Read only for a patch that does.
   */
  async grantsFor(m: StepSql, runId: string, node: string): Promise<PatchGrants> {
    return grantsOf(await this.load(m, runId), node);
  }

  private async load(m: StepSql, runId: string): Promise<InlineRun | { none: true }> {
    const cached = this.runs.get(runId);
    if (cached) {
      return cached;
    }
    const row = await inlineRunRow(m, runId);
    let loaded: InlineRun | { none: true } = { none: true };
    const agent = AgentConfigSchema.safeParse(row?.agent_config ?? { name: 'default' });
    if (agent.success && agent.data.kind === 'graph' && agent.data.dsl) {
      try {
        const dsl = pinnedGraphDsl(agent.data.dsl);
        const inputs = row && runInputsOf(row);
        loaded =
          dsl.kind === 'ragflow'
            ? { canvas: dsl.canvas, ...(inputs ? { inputs } : {}) }
            : { workflow: dsl.workflow };
      } catch {
        // An invalid pinned DSL: the planner fails the run naming the problem.
      }
    }
    this.runs.set(runId, loaded);
    return loaded;
  }
}
