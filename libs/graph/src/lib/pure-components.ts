import {
  aggregateVariables,
  assignVariables,
  beginOutputs,
  stringMerge,
  stringSplit,
} from './data-components';
import { historyAtTurnStart } from './canvas-history';
import type { ComponentContext, ComponentEffect } from './component-step';
import { dataOperations } from './data-operations';
import { iterationItemStep, iterationItems } from './iteration';
import { listOperations } from './list-operations';
import { loopEnded, loopVariables } from './loop';
import { type SwitchParams, SwitchParamsSchema, evaluateSwitch } from './switch';

/** What a pure component reads: the canvas, the variables and the turn — nothing outside the state. */
export type PureComponentContext = Pick<
  ComponentContext,
  'canvas' | 'component' | 'scope' | 'prompt' | 'firstTurn' | 'ran' | 'inputs' | 'previousAnswer'
>;

/** A component that computes its effect from the state alone: deterministic, bounded, no I/O. */
export type PureComponent = (ctx: PureComponentContext) => ComponentEffect;

/** The default value of a canvas variable's type (RAGFlow `Canvas.reset`). */
function typeDefault(type: string | null | undefined): unknown {
  const t = (type ?? '').toLowerCase();
  if (t === 'number') {
    return 0;
  }
  if (t === 'boolean') {
    return false;
  }
  if (t === 'object') {
    return {};
  }
  return t.startsWith('array') ? [] : '';
}

const sysDate = (): string => new Date().toISOString().replace('T', ' ').slice(0, 19);

/** Opens the turn: `sys.*` from the run, `env.*` from the canvas variables on the first turn. */
export const beginComponent: PureComponent = (ctx) => {
  const globals: Record<string, unknown> = ctx.firstTurn
    ? {
        'sys.query': '',
        'sys.user_id': '',
        'sys.conversation_turns': 0,
        'sys.files': [],
        'sys.history': [],
        ...ctx.canvas.globals,
        ...Object.fromEntries(
          Object.entries(ctx.canvas.variables).map(([k, v]) => [`env.${k}`, v.value ?? typeDefault(v.type)]),
        ),
      }
    : { ...ctx.scope.globals };
  globals['sys.query'] = ctx.prompt;
  globals['sys.date'] = sysDate();
  globals['sys.conversation_turns'] = Number(globals['sys.conversation_turns'] ?? 0) + 1;
  const outputs = beginOutputs(ctx.component.params, ctx.inputs, ctx.prompt);
  return {
    outputs,
    globals: historyAtTurnStart(globals, ctx.prompt, ctx.previousAnswer),
    summary: 'Begin: the canvas is open for this turn',
  };
};

/** This run's visits of `id` since `parentId` last started (an earlier run's state is not counted). */
function visitsSince(ran: readonly string[], parentId: string, id: string): number {
  const parentAt = ran.lastIndexOf(parentId);
  return ran.slice(parentAt + 1).filter((r) => r === id).length;
}

// The components that compute on the state alone, one runner per RAGFlow component name. Each is
// named by its descriptor in COMPONENTS (components.ts), which makes it inline-able: the
// orchestrator runs it in its step transaction (docs/architecture.md, "Where a node runs").
// Every other component runs in the planner service.

/** A Switch's params, parsed once per params object (a run's canvas is kept, not read per step). */
const switchParams = new WeakMap<object, SwitchParams>();

function switchParamsOf(params: Record<string, unknown>): SwitchParams {
  let parsed = switchParams.get(params);
  if (!parsed) {
    parsed = SwitchParamsSchema.parse(params);
    switchParams.set(params, parsed);
  }
  return parsed;
}

export const switchComponent: PureComponent = (ctx) => {
  const decision = evaluateSwitch(ctx.scope, switchParamsOf(ctx.component.params));
  return {
    outputs: { _next: decision.next },
    outcome: { next: decision.next },
    summary:
      decision.matched < 0
        ? `Switch: no condition matched → ${decision.next.join(', ')}`
        : `Switch: condition ${decision.matched + 1} matched → ${decision.next.join(', ')}`,
  };
};

export const variableAssignerComponent: PureComponent = (ctx) => {
  const after = assignVariables(ctx.scope, ctx.component.params);
  // RAGFlow's set_variable_value writes `cpn@root` into that component's outputs (a Loop's
  // variables, most often): each component's roots that changed, its own kept apart.
  const assigned: Record<string, Record<string, unknown>> = {};
  for (const [id, outputs] of Object.entries(after.outputs)) {
    const before = ctx.scope.outputs[id];
    if (outputs === before) {
      continue;
    }
    const changed = Object.keys(outputs).filter((root) => !before || outputs[root] !== before[root]);
    assigned[id] = Object.fromEntries(changed.map((root) => [root, outputs[root]]));
  }
  const { [ctx.component.id]: own, ...others } = assigned;
  return {
    outputs: own ? after.outputs[ctx.component.id] : {},
    globals: after.globals,
    ...(Object.keys(others).length ? { assigned: others } : {}),
    summary: 'VariableAssigner: variables set',
  };
};

export const iterationComponent: PureComponent = (ctx) => ({
  outputs: {},
  summary: `Iteration over ${iterationItems(ctx.scope, ctx.component.id).length} items`,
});

export const iterationItemComponent: PureComponent = (ctx) => {
  const visit = visitsSince(ctx.ran, ctx.component.parentId ?? '', ctx.component.id);
  const step = iterationItemStep(ctx.scope, ctx.component.id, visit);
  return {
    outputs: step.outputs,
    outcome: { ended: step.ended },
    summary: step.ended ? 'IterationItem: no item left' : `IterationItem: item ${visit}`,
  };
};

export const loopComponent: PureComponent = (ctx) => ({
  outputs: loopVariables(ctx.scope, ctx.component.params),
  summary: 'Loop: starting',
});

export const loopItemComponent: PureComponent = (ctx) => {
  const loop = ctx.canvas.components[ctx.component.parentId ?? ''];
  const visit = visitsSince(ctx.ran, loop?.id ?? '', ctx.component.id);
  const ended = loopEnded(ctx.scope, loop?.params ?? {}, visit);
  return {
    outputs: { index: visit },
    outcome: { ended },
    summary: ended ? 'LoopItem: the loop is over' : `LoopItem: turn ${visit + 1}`,
  };
};

export const exitLoopComponent: PureComponent = () => ({
  outputs: {},
  summary: 'ExitLoop: leaving the loop',
});

export const variableAggregatorComponent: PureComponent = (ctx) => ({
  outputs: aggregateVariables(ctx.scope, ctx.component.params),
  summary: 'VariableAggregator',
});

export const stringTransformComponent: PureComponent = (ctx) => {
  const method = ctx.component.params['method'] ?? 'split';
  const result =
    method === 'merge'
      ? stringMerge(ctx.scope, ctx.component.params)
      : stringSplit(ctx.scope, ctx.component.params);
  return { outputs: { result }, summary: `StringTransform ${String(method)}` };
};

export const dataOperationsComponent: PureComponent = (ctx) => ({
  outputs: dataOperations(ctx.scope, ctx.component.params),
  summary: 'DataOperations',
});

export const listOperationsComponent: PureComponent = (ctx) => {
  const outputs = listOperations(ctx.scope, ctx.component.params);
  return { outputs, summary: `ListOperations: ${outputs.result.length} items` };
};
