import { applyPatch, deepClone, type Operation } from 'fast-json-patch';
import {
  type Action,
  GRAPH_ENTRY_NODE,
  type RuntimeState,
  ZERO_USAGE,
  componentIdOfNode,
  graphNodeName,
} from '@switchyard/contracts';
import { pureLoopCanvas } from '@switchyard/testing';
import { type ComponentStepOutput, runComponentStep } from './component-step';
import { pureComponent } from './components';
import { parseCanvas } from './normalize-dsl';

const T0 = '2026-11-29T10:00:00.000Z';

function openTurn(): RuntimeState {
  const start: Action = {
    id: 1,
    node: 'start',
    preparation: '',
    summary: 'start',
    result: { prompt: 'count' },
    usage: { ...ZERO_USAGE },
    next: [GRAPH_ENTRY_NODE],
    started_at: T0,
    finished_at: T0,
    attempt: 1,
  };
  return {
    thread_id: 't',
    run_id: 'r',
    turn: 0,
    version: 1,
    prompts: ['count'],
    user_context: {},
    memory: [],
    output_style: '',
    scenario: '',
    output_structure: [],
    task_goals: [''],
    origin_files: [],
    preprocessed_files: { documents: {}, tables: {}, other_files: {} },
    todos: [[]],
    action_history: [[start]],
    chat_history: [],
    usage: [{ ...ZERO_USAGE }],
  };
}

/**
 * Runs the canvas's pure components one step after another from `state`, as the orchestrator
 * chains them; `fresh` rebuilds each step's state from scratch (no object shared with the step
 * before), as a state loaded from Postgres is.
 */
async function runChain(fresh: boolean): Promise<ComponentStepOutput[]> {
  // A Loop of 5 turns of VariableAssigner → StringTransform → Switch → StringTransform.
  const canvas = parseCanvas(pureLoopCanvas(5));
  let state = openTurn();
  let node = GRAPH_ENTRY_NODE;
  const outs: ComponentStepOutput[] = [];
  for (let step = 0; step < 200; step++) {
    const out = await runComponentStep(
      {
        state,
        node,
        canvas,
        tenantId: 'tenant',
        runId: 'r',
        taskId: `task-${step}`,
        signal: new AbortController().signal,
        lastDelivery: true,
        emitToken: () => Promise.resolve(),
      },
      (ctx) => Promise.resolve(pureComponent(ctx.component.name)!(ctx)),
    );
    outs.push(out);
    const action: Action = {
      id: state.version + 1,
      node,
      preparation: '',
      summary: out.summary,
      result: out.result,
      usage: { ...ZERO_USAGE },
      next: out.next,
      started_at: T0,
      finished_at: T0,
      attempt: 1,
    };
    const graph = applyPatch({ graph: state.graph }, deepClone(out.patch ?? []) as Operation[], true, false)
      .newDocument.graph;
    state = {
      ...state,
      version: state.version + 1,
      graph,
      action_history: [[...state.action_history[0], action]],
    };
    if (fresh) {
      state = deepClone(state) as RuntimeState;
    }
    const following = out.next[0];
    const id = following ? componentIdOfNode(following) : undefined;
    if (!following || !id || !pureComponent(canvas.components[id]?.name ?? '')) {
      return outs;
    }
    node = following;
  }
  throw new Error('the loop did not end in 200 steps');
}

describe(runComponentStep.name, () => {
  it('reads a long turn the same whether the step before it was read here or not', async () => {
    const chained = await runChain(false);
    const fresh = await runChain(true);

    expect(chained).toEqual(fresh);
    // Begin, Loop, then 5 turns of LoopItem → VariableAssigner → StringTransform → Switch →
    // StringTransform, then the LoopItem that ends the loop, whose successor is the Message.
    expect(chained).toHaveLength(2 + 5 * 5 + 1);
    expect(chained.at(-1)?.next).toEqual([graphNodeName('Message:Done')]);
    expect(
      chained
        .filter((o) => (o.result as { outputs: { index?: number } }).outputs.index !== undefined)
        .map((o) => (o.result as { outputs: { index: number } }).outputs.index),
    ).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
