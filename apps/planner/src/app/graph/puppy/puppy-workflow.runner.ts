import { Inject, Injectable } from '@nestjs/common';
import {
  GRAPH_ENTRY_NODE,
  GRAPH_NODE_PREFIX,
  type JsonPatchOperation,
  StartResultSchema,
  componentIdOfNode,
  graphNodeName,
} from '@switchyard/contracts';
import {
  ENTRY_RECORD,
  type EdgeRecord,
  GraphException,
  type PuppyWorkflow,
  answerBlocks,
  blockViews,
  edgeStatus,
  entryRecord,
  failedEdges,
  pyJsonDumps,
  startEdges,
  storedRecord,
  successorEdges,
} from '@switchyard/graph';
import type { NodeInput, NodeOutput } from '@switchyard/worker';
import { GraphCanvasLoader } from '../graph-canvas.loader';
import { GraphNodesRegistrar } from '@switchyard/platform';
import { PuppyEdges } from './puppy-edges';

/** The node that answers once every edge has settled (`end` is refused as an edge id). */
export const PUPPY_END_NODE = `${GRAPH_NODE_PREFIX}.end`;

/** The `result` of a PuppyEngine workflow's action. */
export interface PuppyResult {
  /** The edge (or `begin`/`end`). */
  edge: string;
  /** ran: the edge computed; skipped: a block it reads was never written; waiting/settled: nothing to do. */
  status: 'ran' | 'skipped' | 'waiting' | 'settled' | 'opened' | 'answered' | 'failed';
  written?: string[];
  /** On an action that ends the run: the answer blocks' contents, and as text. */
  answer?: string;
  blocks?: Record<string, unknown>;
  skipped_blocks?: string[];
}

const pointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');
// The answer streams as one token, so stream readers (the OpenAI endpoint) see it as for a canvas.
async function emitAnswer(result: PuppyResult, emitToken: (text: string) => Promise<void>): Promise<void> {
  if (result.answer) {
    await emitToken(result.answer);
  }
}
const asText = (v: unknown): string => (typeof v === 'string' ? v : pyJsonDumps(v));

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
    const { workflow, inputs } = await this.loader.puppyRun(task.run_id);
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
    const views = blockViews(workflow, outputs);
    const status = edgeStatus(workflow, edgeId, views, outputs);
    if (status === 'settled' || status === 'waiting') {
      // Named again by another writer of its inputs: nothing to do now (it runs once, when ready).
      return {
        summary: `${edgeId}: ${status}`,
        result: { edge: edgeId, status } satisfies PuppyResult,
        next: [],
      };
    }
    let record: EdgeRecord;
    let usage;
    let summary: string;
    if (status === 'skip') {
      // Where PuppyEngine would be stuck (a block it reads is never written, e.g. an untaken ifelse
      // branch), the edge is skipped and its outputs with it.
      record = { blocks: {}, skipped: true };
      summary = `${edgeId} skipped: a block it reads was never written`;
    } else {
      try {
        const effect = await this.edges.run(workflow, edgeId, views, input.signal);
        record = { blocks: effect.blocks };
        usage = effect.usage;
        summary = effect.summary;
      } catch (err) {
        if ((err as { retryable?: unknown }).retryable === true && !input.lastDelivery) {
          throw err;
        }
        // The edge settles as failed (its readers skip) and names graph.end, which fails the run
        // once the step's other edges are in: an error on one action of a parallel batch alone
        // would not end the run, since the orchestrator reads the error of a step's last action.
        const message = (err as Error).message;
        await this.registrar.ensure([PUPPY_END_NODE]);
        return {
          summary: `${edgeId} failed: ${message}`,
          result: { edge: edgeId, status: 'failed', written: [] } satisfies PuppyResult,
          next: [PUPPY_END_NODE],
          patch: [
            {
              op: 'add',
              path: `/graph/outputs/${pointer(edgeId)}`,
              value: storedRecord({ blocks: {}, failed: message }),
            },
          ],
          error: { code: 'component_failed', message: `edge ${edgeId}: ${message}` },
        };
      }
    }
    const successors = successorEdges(workflow, edgeId).map(graphNodeName);
    const next = successors.length ? successors : [PUPPY_END_NODE];
    await this.registrar.ensure(next);
    const result: PuppyResult = {
      edge: edgeId,
      status: status === 'skip' ? 'skipped' : 'ran',
      written: Object.keys(record.blocks),
    };
    return {
      summary,
      result,
      next,
      patch: [{ op: 'add', path: `/graph/outputs/${pointer(edgeId)}`, value: storedRecord(record) }],
      ...(usage ? { usage } : {}),
    };
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
      Object.assign(result, this.answer(workflow, outputs));
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
    const result: PuppyResult = { edge: 'end', status: 'answered', ...this.answer(workflow, outputs) };
    await emitAnswer(result, emitToken);
    return { summary: 'end: every edge has settled', result, next: [] };
  }

  /** The answer blocks (isOutput, else those no edge reads) that were written, and their text. */
  private answer(
    workflow: PuppyWorkflow,
    outputs: Record<string, unknown>,
  ): Pick<PuppyResult, 'answer' | 'blocks' | 'skipped_blocks'> {
    const views = blockViews(workflow, outputs);
    const ids = answerBlocks(workflow);
    const written = ids.filter((id) => views[id].state === 'processed');
    const blocks = Object.fromEntries(written.map((id) => [id, views[id].content]));
    const skipped = ids.filter((id) => views[id].state !== 'processed');
    return {
      answer: written.map((id) => asText(views[id].content)).join('\n\n'),
      blocks,
      ...(skipped.length ? { skipped_blocks: skipped } : {}),
    };
  }

  private failed(
    message: string,
    edge: string,
    outputs: Record<string, unknown>,
    workflow: PuppyWorkflow,
  ): NodeOutput {
    return {
      summary: `${edge} failed: ${message}`,
      result: { edge, status: 'failed', ...this.answer(workflow, outputs) } satisfies PuppyResult,
      next: [],
      error: { code: 'component_failed', message: `edge ${edge}: ${message}` },
    };
  }
}
