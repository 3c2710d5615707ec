import { Inject, Injectable } from '@nestjs/common';
import {
  GRAPH_ENTRY_NODE,
  type JsonPatchOperation,
  StartResultSchema,
  componentIdOfNode,
  graphNodeName,
} from '@switchyard/contracts';
import {
  ENTRY_RECORD,
  type EdgeRecord,
  GraphException,
  PUPPY_END_NODE,
  type PuppyResult,
  type PuppyWorkflow,
  blockViews,
  edgeStatus,
  entryRecord,
  failedEdges,
  puppyAnswer,
  puppyFailure,
  runPuppyEdgeStep,
  startEdges,
  storedRecord,
} from '@switchyard/graph';
import { type NodeInput, type NodeOutput, taskTenant } from '@switchyard/worker';
import { GraphCanvasLoader } from '../graph-canvas.loader';
import { GraphNodesRegistrar } from '@switchyard/platform';
import { PuppyEdges } from './puppy-edges';

// The answer streams as one token, so stream readers (the OpenAI endpoint) see it as for a canvas.
async function emitAnswer(result: PuppyResult, emitToken: (text: string) => Promise<void>): Promise<void> {
  if (result.answer) {
    await emitToken(result.answer);
  }
}

/**
 * Runs a PuppyEngine workflow's nodes: `graph.begin` opens the run's blocks, each edge is a
 * `graph.<edge>` node that runs once all the blocks it reads are processed and names the edges
 * reading its outputs in `next` (the orchestrator joins a step's `next` lists, so an edge made
 * ready by two parallel edges runs once), and `graph.end` answers once every edge has settled.
 */
@Injectable()
export class PuppyWorkflowRunner {
  constructor(
    @Inject(GraphCanvasLoader) private readonly loader: GraphCanvasLoader,
    @Inject(PuppyEdges) private readonly edges: PuppyEdges,
    @Inject(GraphNodesRegistrar) private readonly registrar: GraphNodesRegistrar,
  ) {}

  async execute(input: NodeInput): Promise<NodeOutput> {
    const { task, state } = input;
    const tenantId = taskTenant(task);
    const { workflow, inputs } = await this.loader.puppyRun(task.run_id, tenantId);
    if (task.node === GRAPH_ENTRY_NODE) {
      const turn = state.action_history[state.turn] ?? [];
      const start = StartResultSchema.safeParse(turn.find((a) => a.node === 'start')?.result);
      return this.open(workflow, inputs, start.success ? start.data.prompt : '', input.emitToken);
    }
    const outputs: Record<string, unknown> = state.graph?.outputs ?? {};
    if (!state.graph || !outputs[ENTRY_RECORD]) {
      return this.failed('the workflow was not opened by graph.begin', task.node, outputs, workflow);
    }
    if (task.node === PUPPY_END_NODE) {
      return this.end(workflow, outputs, input.emitToken);
    }
    const edgeId = componentIdOfNode(task.node) ?? '';
    if (!workflow.edges[edgeId]) {
      return this.failed(`the workflow has no edge "${edgeId}"`, edgeId, outputs, workflow);
    }
    const step = await runPuppyEdgeStep(
      workflow,
      outputs,
      edgeId,
      (w, id, views) => this.edges.run(w, id, views, { signal: input.signal, tenantId }),
      input.lastDelivery === true,
    );
    await this.registrar.ensure(step.successors);
    return step.answer;
  }

  /** Opens the run: the blocks no edge writes, filled from the workflow, the inputs and the prompt. */
  private async open(
    workflow: PuppyWorkflow,
    inputs: Record<string, unknown> | undefined,
    prompt: string,
    emitToken: (text: string) => Promise<void>,
  ): Promise<NodeOutput> {
    let record: EdgeRecord;
    try {
      record = entryRecord(workflow, { ...(inputs ? { inputs } : {}), prompt });
    } catch (err) {
      return this.failed((err as GraphException).message, ENTRY_RECORD, {}, workflow);
    }
    const outputs = { [ENTRY_RECORD]: storedRecord(record) };
    const patch: JsonPatchOperation[] = [{ op: 'add', path: '/graph', value: { globals: {}, outputs } }];
    const first = startEdges(workflow, outputs).map(graphNodeName);
    await this.registrar.ensure(first);
    const result: PuppyResult = { edge: ENTRY_RECORD, status: 'opened', written: Object.keys(record.blocks) };
    if (first.length === 0) {
      Object.assign(result, puppyAnswer(workflow, outputs));
      await emitAnswer(result, emitToken);
    }
    return { summary: `the workflow is open: ${first.length} edge(s) ready`, result, next: first, patch };
  }

  /** Answers once every edge has settled; fails where PuppyEngine would be stuck. */
  private async end(
    workflow: PuppyWorkflow,
    outputs: Record<string, unknown>,
    emitToken: (text: string) => Promise<void>,
  ): Promise<NodeOutput> {
    const views = blockViews(workflow, outputs);
    const [failure] = failedEdges(workflow, outputs);
    if (failure) {
      return this.failed(failure[1], failure[0], outputs, workflow);
    }
    const open = Object.keys(workflow.edges).filter(
      (id) => edgeStatus(workflow, id, views, outputs) !== 'settled',
    );
    const running = open.filter((id) => edgeStatus(workflow, id, views, outputs) !== 'waiting');
    if (open.length && running.length) {
      // Edges of another branch run in this step: the last of them names this node again.
      return {
        summary: `end: ${open.length} edge(s) still to settle`,
        result: { edge: 'end', status: 'waiting' },
        next: [],
      };
    }
    if (open.length) {
      return this.failed(
        `Workflow execution stuck: edges ${open.join(', ')} wait for blocks no edge will write`,
        'end',
        outputs,
        workflow,
      );
    }
    const result: PuppyResult = { edge: 'end', status: 'answered', ...puppyAnswer(workflow, outputs) };
    await emitAnswer(result, emitToken);
    return { summary: 'end: every edge has settled', result, next: [] };
  }

  private failed(
    message: string,
    edge: string,
    outputs: Record<string, unknown>,
    workflow: PuppyWorkflow,
  ): NodeOutput {
    return puppyFailure(message, edge, outputs, workflow);
  }
}
