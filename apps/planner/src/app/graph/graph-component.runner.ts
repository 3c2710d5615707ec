import { Inject, Injectable } from '@nestjs/common';
import {
  ASK_USER,
  type Action,
  GRAPH_ENTRY_NODE,
  type GraphState,
  type JsonPatchOperation,
  type RuntimeState,
  StartResultSchema,
  componentIdOfNode,
  graphNodeName,
} from '@switchyard/contracts';
import {
  type Canvas,
  GraphErrorCode,
  GraphException,
  componentTimeoutMs,
  exceptionOutcome,
  isSkipped,
  successorsOf,
} from '@switchyard/graph';
import type { NodeInput, NodeOutput } from '@switchyard/worker';
import { GraphCanvasLoader } from './graph-canvas.loader';
import { type ComponentEffect, GraphComponents } from './graph-components';
import { GraphNodesRegistrar } from './graph-nodes.registrar';
import { GraphProvidersConfig } from './graph-providers.config';

/** The `result` of a graph component's action. */
export interface ComponentResult {
  component: string;
  name: string;
  outputs: Record<string, unknown>;
  skipped?: true;
  /** A UserFillUp waiting for its form (the run pauses on `ask_user`, which this call asks). */
  paused?: true;
  tool_calls?: { id: string; name: string; args: Record<string, unknown> }[];
  /** On an action that ends its branch: the text of the turn's Messages, in the order they ran. */
  answer?: string;
  /** A Message's text as streamed, when it differs from its `content` (think markers kept). */
  streamed?: string;
  /** The component failed and its exception policy showed this default value as a message. */
  message?: string;
  /** The component failed and its exception policy went on here instead of its successors. */
  exception_goto?: string[];
}

/** What the exception policy made of a failure: a message to show or where to go instead. */
interface Recovery {
  message?: string;
  goto?: string[];
}

const pointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The outputs of the component that ended the previous turn (RAGFlow appends them to the canvas
 * history as the assistant's answer), when that turn finished without an error.
 */
function previousAnswerOf(state: Readonly<RuntimeState>): { previousAnswer?: Record<string, unknown> } {
  const actions = state.turn > 0 ? (state.action_history[state.turn - 1] ?? []) : [];
  if (actions.some((a) => a.error)) {
    return {};
  }
  const last = turnComponents(actions)
    .filter((r) => !r.skipped)
    .at(-1);
  if (!last) {
    return {};
  }
  const shown = Object.fromEntries(Object.entries(last.outputs).filter(([k]) => !k.startsWith('_')));
  return { previousAnswer: shown };
}

/** The graph components of the turn so far, in the order their actions were applied. */
function turnComponents(actions: readonly Action[]): ComponentResult[] {
  return actions
    .filter((a) => componentIdOfNode(a.node) !== undefined && a.result && typeof a.result === 'object')
    .map((a) => a.result as ComponentResult)
    .filter((r) => !r.paused);
}

/**
 * Runs one `graph.<component>` task: reads the canvas the run pinned and the canvas state in the
 * thread, applies RAGFlow's skip rule, runs the component, and answers with its outputs as a
 * patch of `graph` and its successors as `next` — routing stays the orchestrator's, on `next`.
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
    const { state, task } = input;
    const id = componentIdOfNode(task.node) ?? '';
    const { canvas, inputs, tenantId } = await this.canvases.forRun(task.run_id);
    const component = canvas.components[id];
    const turn = state.action_history[state.turn] ?? [];
    const ran = turnComponents(turn);
    if (!component) {
      return this.failed(id, 'Unknown', `the canvas has no component "${id}"`, ran, {});
    }
    const graph: GraphState | undefined = state.graph;
    if (!graph && task.node !== GRAPH_ENTRY_NODE) {
      return this.failed(id, component.name, 'the canvas was not opened by its Begin component', ran, {});
    }
    const ranIds = new Set(ran.filter((r) => !r.skipped).map((r) => r.component));
    if (isSkipped(canvas, id, ranIds)) {
      return this.finish(
        canvas,
        id,
        component.name,
        { outputs: {}, summary: `${id} skipped: it reads a component that did not run` },
        ran,
        [],
        true,
      );
    }
    const start = StartResultSchema.safeParse(turn.find((a) => a.node === 'start')?.result);
    let effect: ComponentEffect;
    let recovery: Recovery = {};
    // The component's time budget (four levels, libs/graph componentTimeoutMs); past it its work
    // is aborted and the failure goes through the exception policy like any other.
    const budgetMs = componentTimeoutMs(component.name, this.config.timeouts);
    const timer = new AbortController();
    let expire: NodeJS.Timeout | undefined;
    try {
      const work = this.components.run({
        canvas,
        component,
        scope: { canvas, globals: graph?.globals ?? {}, outputs: graph?.outputs ?? {} },
        prompt: start.success ? start.data.prompt : '',
        tenantId,
        runId: task.run_id,
        ...(task.priority ? { priority: task.priority } : {}),
        taskId: task.task_id,
        firstTurn: !graph,
        ran: ran.filter((r) => !r.skipped).map((r) => r.component),
        resumes: turn.filter((a) => a.node === ASK_USER.name).length,
        ...(inputs ? { inputs } : {}),
        signal: AbortSignal.any([input.signal, timer.signal]),
        emitToken: input.emitToken,
        ...(component.name === 'UserFillUp' ? { answer: answerTo(task.node, turn) } : {}),
        ...(task.node === GRAPH_ENTRY_NODE && graph ? previousAnswerOf(state) : {}),
      });
      const timeout = new Promise<never>((_, reject) => {
        expire = setTimeout(() => {
          timer.abort();
          reject(
            new GraphException(
              GraphErrorCode.ComponentFailed,
              `timed out after ${budgetMs} ms (the ${component.name} time budget; ` +
                `SWITCHYARD_GRAPH_TIMEOUT_${component.name.toUpperCase()}_MS sets it)`,
            ),
          );
        }, budgetMs);
      });
      effect = await Promise.race([work, timeout]);
    } catch (err) {
      // Only what says so (a model call that may pass) is retried; a component's own failure
      // (a bad reference, a Loop variable left incomplete) fails the same way every time.
      if (
        (err as { retryable?: unknown }).retryable === true &&
        !input.lastDelivery &&
        !input.signal.aborted
      ) {
        throw err;
      }
      if (input.signal.aborted) {
        throw err;
      }
      // RAGFlow's exception policy: a default value, a goto, or (by default) `_ERROR` and a stop.
      const message = (err as Error).message;
      const outcome = exceptionOutcome(component.name, component.params, message);
      switch (outcome.kind) {
        case 'fail':
          return this.failed(id, component.name, message, ran, outcome.outputs, graph);
        case 'default':
          effect = {
            outputs: outcome.outputs,
            summary: `${id} failed (${message}); its default value stands in`,
          };
          break;
        case 'message':
          await input.emitToken(outcome.message);
          effect = {
            outputs: outcome.outputs,
            summary: `${id} failed (${message}); its default value is shown`,
          };
          recovery = { message: outcome.message };
          break;
        case 'goto':
          effect = {
            outputs: outcome.outputs,
            summary: `${id} failed (${message}); going on at ${outcome.next.join(', ')}`,
          };
          recovery = { goto: outcome.next };
          break;
      }
    } finally {
      clearTimeout(expire);
    }
    return this.finish(
      canvas,
      id,
      component.name,
      effect,
      ran,
      this.patchOf(id, effect, graph),
      false,
      recovery,
    );
  }

  private patchOf(id: string, effect: ComponentEffect, graph: GraphState | undefined): JsonPatchOperation[] {
    if (!graph) {
      return [
        {
          op: 'add',
          path: '/graph',
          value: { globals: effect.globals ?? {}, outputs: { [id]: effect.outputs } },
        },
      ];
    }
    const patch: JsonPatchOperation[] = [
      { op: 'add', path: `/graph/outputs/${pointer(id)}`, value: effect.outputs },
    ];
    for (const [key, value] of Object.entries(effect.globals ?? {})) {
      if (JSON.stringify(graph.globals[key]) !== JSON.stringify(value)) {
        patch.push({ op: 'add', path: `/graph/globals/${pointer(key)}`, value });
      }
    }
    return patch;
  }

  private async finish(
    canvas: Canvas,
    id: string,
    name: string,
    effect: ComponentEffect,
    ran: ComponentResult[],
    patch: JsonPatchOperation[],
    skipped = false,
    recovery: Recovery = {},
  ): Promise<NodeOutput> {
    if (effect.pause) {
      const node = graphNodeName(id);
      return {
        summary: effect.summary,
        result: {
          component: id,
          name,
          outputs: effect.outputs,
          paused: true,
          tool_calls: [
            { id: `fill_${node}`, name: ASK_USER.name, args: { ...effect.pause, resume_at: node } },
          ],
        } satisfies ComponentResult,
        next: [ASK_USER.name],
      };
    }
    const next = skipped
      ? []
      : (recovery.goto ?? successorsOf(canvas, id, effect.outcome)).map(graphNodeName);
    await this.registrar.ensure(next);
    const result: ComponentResult = {
      component: id,
      name,
      outputs: effect.outputs,
      ...(skipped ? { skipped: true } : {}),
      ...(effect.streamed !== undefined ? { streamed: effect.streamed } : {}),
      ...(recovery.message !== undefined ? { message: recovery.message } : {}),
      ...(recovery.goto ? { exception_goto: recovery.goto } : {}),
    };
    if (next.length === 0) {
      result.answer = answerOf([...ran, result]);
    }
    return {
      summary: effect.summary,
      result,
      next,
      ...(effect.usage ? { usage: effect.usage } : {}),
      ...(patch.length ? { patch } : {}),
    };
  }

  private failed(
    id: string,
    name: string,
    message: string,
    ran: ComponentResult[],
    outputs: Record<string, unknown>,
    graph?: GraphState,
  ): NodeOutput {
    const result: ComponentResult = { component: id, name, outputs };
    result.answer = answerOf([...ran, result]);
    return {
      summary: `${id} failed: ${message}`,
      result,
      next: [],
      error: { code: 'component_failed', message: `component ${id}: ${message}` },
      ...(graph ? { patch: [{ op: 'add', path: `/graph/outputs/${pointer(id)}`, value: outputs }] } : {}),
    };
  }
}

/** The answer to a UserFillUp's pause: the `ask_user` action right after its paused action. */
function answerTo(node: string, actions: readonly Action[]): Record<string, unknown> | undefined {
  for (let i = actions.length - 1; i > 0; i--) {
    if (actions[i].node === node) {
      return undefined;
    }
    if (actions[i].node === ASK_USER.name && actions[i - 1].node === node) {
      const answer = actions[i].result;
      return answer && typeof answer === 'object' ? (answer as Record<string, unknown>) : {};
    }
  }
  return undefined;
}

/**
 * The run's answer: the Messages' texts, concatenated as they streamed (nothing in between),
 * with an Agent's tool notes inside `<think>…</think>` as RAGFlow's completion API shows them.
 */
function answerOf(results: ComponentResult[]): string {
  return results
    .map((r) =>
      r.skipped
        ? ''
        : r.name === 'Message' && typeof r.outputs['content'] === 'string'
          ? (r.streamed ?? r.outputs['content'])
          : (r.message ?? ''),
    )
    .join('');
}
