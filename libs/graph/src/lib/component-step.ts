import type { JsonPatchOperation, RunError, RunPriority, RuntimeState, Usage } from '@switchyard/contracts';
import {
  ASK_USER,
  type Action,
  GRAPH_ENTRY_NODE,
  type GraphState,
  type StartResult,
  StartResultSchema,
  componentIdOfNode,
  graphNodeName,
} from '@switchyard/contracts';
import { type ComponentOutcome, isSkipped, successorsOf } from './canvas-next';
import type { Canvas, NormalizedComponent } from './dsl.schema';
import { exceptionOutcome } from './exception-policy';
import { GraphErrorCode, GraphException } from './graph.exception';
import { withIterationAliases } from './iteration';
import type { VariableScope } from './variable-ref';

// One step of a RAGFlow canvas: one component run on the canvas state in the thread, answered as
// an action (its outputs as a patch of `graph`, its successors as `next`). The same code runs a
// component wherever it runs: in the planner service (every component) and inline in the
// orchestrator's step transaction (the pure ones, COMPONENTS' `pure` runners).

/** What a component's code gets: its canvas, its definition, the variables, the run's input. */
export interface ComponentContext {
  canvas: Canvas;
  component: NormalizedComponent;
  scope: VariableScope;
  /** The turn's prompt (`sys.query`). */
  prompt: string;
  /** The run's tenant (whose collections a Retrieval searches, whose provider keys a tool uses) and the run. */
  tenantId: string;
  runId: string;
  /** The run's priority within its tenant (sent with tool calls, which are answered fairly). */
  priority?: RunPriority;
  /** The task running the component (a file it makes is kept once per task). */
  taskId: string;
  /** The canvas state has not been opened yet (the thread's first graph turn). */
  firstTurn: boolean;
  signal: AbortSignal;
  emitToken: (text: string) => Promise<void>;
  /** The components that ran in this turn so far, in order (paused and skipped ones left out). */
  ran: readonly string[];
  /** How often this run was resumed so far (answers to paused forms). */
  resumes: number;
  /** The run's inputs of Begin's form. */
  inputs?: Record<string, unknown>;
  /** A UserFillUp resumed: the user's answer to its form. */
  answer?: Record<string, unknown>;
  /** Begin of a later turn: the outputs of the component that ended the previous turn, if it finished. */
  previousAnswer?: Record<string, unknown>;
}

/** What a component did: its outputs, new variable values, routing and usage. */
export interface ComponentEffect {
  outputs: Record<string, unknown>;
  /** The canvas variables after the component (only Begin and VariableAssigner change them). */
  globals?: Record<string, unknown>;
  /**
   * Other components' outputs a VariableAssigner set (RAGFlow `set_variable_value` on `cpn@root`,
   * such as its enclosing Loop's variables): component id → the outputs it set, by root.
   */
  assigned?: Record<string, Record<string, unknown>>;
  outcome?: ComponentOutcome;
  usage?: Usage;
  summary: string;
  /** A Message's text as streamed when it differs from its `content` (an Agent's tool notes). */
  streamed?: string;
  /** A UserFillUp waits for its form: the run pauses on `ask_user` and resumes at the component. */
  pause?: { question: string; input_schema: Record<string, unknown> };
}

/** What a step answers: the fields of its action (a node's output). */
export interface ComponentStepOutput {
  summary: string;
  result: unknown;
  next: string[];
  usage?: Usage;
  patch?: JsonPatchOperation[];
  error?: RunError;
}

/** One `graph.<component>` task to run: the state at its version and the run's pinned canvas. */
export interface ComponentStepInput {
  state: RuntimeState;
  /** The task's node, `graph.<component id>`. */
  node: string;
  canvas: Canvas;
  inputs?: Record<string, unknown>;
  tenantId: string;
  runId: string;
  taskId: string;
  priority?: RunPriority;
  signal: AbortSignal;
  /** No delivery of the task follows this one: a retryable failure is final. */
  lastDelivery: boolean;
  emitToken: (text: string) => Promise<void>;
  /**
   * The component's time budget (see componentTimeoutMs); none for a pure component run inline,
   * which returns at once.
   */
  budgetMs?: number;
}

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
  const last = readTurn(actions)
    .ran.filter((r) => !r.skipped)
    .at(-1);
  if (!last) {
    return {};
  }
  const shown = Object.fromEntries(Object.entries(last.outputs).filter(([k]) => !k.startsWith('_')));
  return { previousAnswer: shown };
}

/** What a component step reads of its turn's actions, gathered in one pass. */
interface TurnRecord {
  /** The components' results, in order (paused ones left out). */
  ran: ComponentResult[];
  /** The ids of those that were not skipped, in order. */
  ids: string[];
  /** Answers to paused forms (`ask_user` actions). */
  resumes: number;
  /** The turn's `start` action's result, when it is one. */
  start: StartResult | undefined;
}

/**
 * The turn's components, run ids, resumes and start. A turn's record is kept by its last action (the
 * states of a run share their action objects), so the next step's turn — one action longer — costs
 * that action, not a walk of the turn: a Loop of hundreds of components run inline used to walk its
 * whole turn four times at every step. The record's arrays are never changed once handed out (the
 * next record copies them), so a step may hold them as long as it likes.
 */
function readTurn(actions: readonly Action[]): TurnRecord {
  const n = actions.length;
  if (n === 0) {
    return { ran: [], ids: [], resumes: 0, start: undefined };
  }
  const known = turnRecords.get(actions[n - 1]);
  if (known?.length === n) {
    return known;
  }
  const before = n > 1 ? turnRecords.get(actions[n - 2]) : undefined;
  const record =
    before?.length === n - 1
      ? withAction({ ...before, ran: before.ran.slice(), ids: before.ids.slice(), length: n }, actions[n - 1])
      : actions.reduce(withAction, { ran: [], ids: [], resumes: 0, start: undefined, length: n });
  // Only the newest record of a turn is kept: one per prefix would hold O(n²) for a long turn.
  if (before) {
    turnRecords.delete(actions[n - 2]);
  }
  turnRecords.set(actions[n - 1], record);
  return record;
}

/** The record of a turn's first `length` actions, by the turn's last action. */
const turnRecords = new WeakMap<Action, TurnRecord & { length: number }>();

/** Adds one action to a record being built (its arrays are its own). */
function withAction<R extends TurnRecord>(record: R, a: Action): R {
  if (a.node === ASK_USER.name) {
    record.resumes++;
  } else if (a.node === 'start') {
    record.start ??= startResultOf(a);
  } else {
    const r = a.result as ComponentResult | null;
    if (r && typeof r === 'object' && !r.paused && componentIdOfNode(a.node) !== undefined) {
      record.ran.push(r);
      if (!r.skipped) {
        record.ids.push(r.component);
      }
    }
  }
  return record;
}

/** A start action's result, parsed once per action object (the states of a run share it). */
const startResults = new WeakMap<Action, StartResult | undefined>();

function startResultOf(action: Action): StartResult | undefined {
  if (!startResults.has(action)) {
    const parsed = StartResultSchema.safeParse(action.result);
    startResults.set(action, parsed.success ? parsed.data : undefined);
  }
  return startResults.get(action);
}

/**
 * Runs one `graph.<component>` task: applies RAGFlow's skip rule, runs the component with `run`
 * within its time budget, puts a failure through the component's exception policy, and answers
 * with its outputs as a patch of `graph` and its successors as `next`. A retryable failure (a
 * model call that may pass) is thrown while deliveries are left.
 */
export async function runComponentStep(
  input: ComponentStepInput,
  run: (ctx: ComponentContext) => Promise<ComponentEffect>,
): Promise<ComponentStepOutput> {
  const { state, canvas, inputs, tenantId } = input;
  const id = componentIdOfNode(input.node) ?? '';
  const component = canvas.components[id];
  const turn = state.action_history[state.turn] ?? [];
  const record = readTurn(turn);
  const { ran } = record;
  if (!component) {
    return failed(id, 'Unknown', `the canvas has no component "${id}"`, ran, {});
  }
  const graph: GraphState | undefined = state.graph;
  if (!graph && input.node !== GRAPH_ENTRY_NODE) {
    return failed(id, component.name, 'the canvas was not opened by its Begin component', ran, {});
  }
  if (isSkipped(canvas, id, record.ids)) {
    return finish(
      canvas,
      id,
      component.name,
      { outputs: {}, summary: `${id} skipped: it reads a component that did not run` },
      ran,
      [],
      true,
    );
  }
  let effect: ComponentEffect;
  let recovery: Recovery = {};
  // The component's time budget (four levels, libs/graph componentTimeoutMs); past it its work
  // is aborted and the failure goes through the exception policy like any other.
  const { budgetMs } = input;
  const timer = new AbortController();
  let expire: NodeJS.Timeout | undefined;
  try {
    const work = run({
      canvas,
      // Bare `{item}`/`{index}`/`{result}` in an Iteration's body resolve like references.
      component: withIterationAliases(canvas, component),
      scope: { canvas, globals: graph?.globals ?? {}, outputs: graph?.outputs ?? {} },
      prompt: record.start?.prompt ?? '',
      tenantId,
      runId: input.runId,
      ...(input.priority ? { priority: input.priority } : {}),
      taskId: input.taskId,
      firstTurn: !graph,
      ran: record.ids,
      resumes: record.resumes,
      ...(inputs ? { inputs } : {}),
      signal: budgetMs === undefined ? input.signal : AbortSignal.any([input.signal, timer.signal]),
      emitToken: input.emitToken,
      ...(component.name === 'UserFillUp' ? { answer: answerTo(input.node, turn) } : {}),
      ...(input.node === GRAPH_ENTRY_NODE && graph ? previousAnswerOf(state) : {}),
    });
    if (budgetMs === undefined) {
      effect = await work;
    } else {
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
    }
  } catch (err) {
    // Only what says so (a model call that may pass) is retried; a component's own failure
    // (a bad reference, a Loop variable left incomplete) fails the same way every time.
    if ((err as { retryable?: unknown }).retryable === true && !input.lastDelivery && !input.signal.aborted) {
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
        return failed(id, component.name, message, ran, outcome.outputs, graph);
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
  return finish(canvas, id, component.name, effect, ran, patchOf(id, effect, graph), false, recovery);
}

function patchOf(id: string, effect: ComponentEffect, graph: GraphState | undefined): JsonPatchOperation[] {
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
  for (const [other, set] of Object.entries(effect.assigned ?? {})) {
    if (!graph.outputs[other]) {
      patch.push({ op: 'add', path: `/graph/outputs/${pointer(other)}`, value: set });
      continue;
    }
    // Root by root: the component's other outputs stay as they are (O(what was set)).
    for (const [root, value] of Object.entries(set)) {
      patch.push({ op: 'add', path: `/graph/outputs/${pointer(other)}/${pointer(root)}`, value });
    }
  }
  for (const [key, value] of Object.entries(effect.globals ?? {})) {
    if (JSON.stringify(graph.globals[key]) !== JSON.stringify(value)) {
      patch.push({ op: 'add', path: `/graph/globals/${pointer(key)}`, value });
    }
  }
  return patch;
}

function finish(
  canvas: Canvas,
  id: string,
  name: string,
  effect: ComponentEffect,
  ran: ComponentResult[],
  patch: JsonPatchOperation[],
  skipped = false,
  recovery: Recovery = {},
): ComponentStepOutput {
  if (effect.pause) {
    const node = graphNodeName(id);
    return {
      summary: effect.summary,
      result: {
        component: id,
        name,
        outputs: effect.outputs,
        paused: true,
        tool_calls: [{ id: `fill_${node}`, name: ASK_USER.name, args: { ...effect.pause, resume_at: node } }],
      } satisfies ComponentResult,
      next: [ASK_USER.name],
    };
  }
  const next = skipped ? [] : (recovery.goto ?? successorsOf(canvas, id, effect.outcome)).map(graphNodeName);
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

function failed(
  id: string,
  name: string,
  message: string,
  ran: ComponentResult[],
  outputs: Record<string, unknown>,
  graph?: GraphState,
): ComponentStepOutput {
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
