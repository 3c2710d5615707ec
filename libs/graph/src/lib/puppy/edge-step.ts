import {
  GRAPH_NODE_PREFIX,
  INLINE_PUPPY_EDGES,
  type NodeAnswer,
  type Usage,
  graphNodeName,
} from '@switchyard/contracts';
import { pyJsonDumps } from '../py-value';
import { isLlmChunk } from './chunk';
import { runPureEdge } from './edge-run';
import {
  type BlockView,
  type EdgeRecord,
  answerBlocks,
  blockViews,
  edgeStatus,
  storedRecord,
  successorEdges,
} from './scheduler';
import type { PuppyWorkflow } from './workflow.schema';

/** The node that answers once every edge has settled (`end` is refused as an edge id). */
export const PUPPY_END_NODE = `${GRAPH_NODE_PREFIX}.end`;

/** Whether the workflow's edge `edgeId` runs inline (INLINE_PUPPY_EDGES: no model, no I/O). */
export function purePuppyEdge(workflow: PuppyWorkflow, edgeId: string): boolean {
  const edge = workflow.edges[edgeId];
  // A chunk edge whose mode asks a model is not pure: the planner runs it.
  return (
    edge !== undefined &&
    INLINE_PUPPY_EDGES.includes(edge.type) &&
    !(edge.type === 'chunk' && isLlmChunk(edge.data as Record<string, unknown>))
  );
}

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

/** What an edge did: the blocks it wrote and what its model calls cost. */
export interface EdgeEffect {
  blocks: Record<string, unknown>;
  usage?: Usage;
  summary: string;
}

/** Runs an edge on the blocks it reads (the planner's calls models; pure edges need nothing). */
export type EdgeRunner = (
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
) => Promise<EdgeEffect>;

/** What a pure edge (ifelse, modify, search) writes, computed here: no model. */
export function pureEdgeEffect(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
): Promise<EdgeEffect> {
  const blocks = runPureEdge(workflow, edgeId, views);
  const summary = `${workflow.edges[edgeId].type} ${edgeId}: wrote ${Object.keys(blocks).join(', ') || 'nothing'}`;
  return Promise.resolve({ blocks, summary });
}

/** An edge step's answer, and the graph nodes it names that must be registered before it goes out. */
export interface PuppyEdgeStep {
  answer: NodeAnswer;
  successors: string[];
}

const pointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const asText = (v: unknown): string => (typeof v === 'string' ? v : pyJsonDumps(v));

/**
 * The step of edge `edgeId` (node `graph.<edge>`) on the run's block outputs, the same wherever
 * it runs (the planner, or the orchestrator for a pure edge): settled or waiting → nothing; a block
 * it reads never written → skipped; else `run` computes it. A retryable failure of `run` is
 * rethrown unless `lastDelivery`; any other settles the edge as failed and names `graph.end`.
 */
export async function runPuppyEdgeStep(
  workflow: PuppyWorkflow,
  outputs: Record<string, unknown>,
  edgeId: string,
  run: EdgeRunner,
  lastDelivery: boolean,
): Promise<PuppyEdgeStep> {
  const views = blockViews(workflow, outputs);
  const status = edgeStatus(workflow, edgeId, views, outputs);
  if (status === 'settled' || status === 'waiting') {
    // Named again by another writer of its inputs: nothing to do now (it runs once, when ready).
    return {
      answer: {
        summary: `${edgeId}: ${status}`,
        result: { edge: edgeId, status } satisfies PuppyResult,
        next: [],
      },
      successors: [],
    };
  }
  let record: EdgeRecord;
  let usage: Usage | undefined;
  let summary: string;
  if (status === 'skip') {
    // Where PuppyEngine would be stuck (a block it reads is never written, e.g. an untaken ifelse
    // branch), the edge is skipped and its outputs with it.
    record = { blocks: {}, skipped: true };
    summary = `${edgeId} skipped: a block it reads was never written`;
  } else {
    try {
      const effect = await run(workflow, edgeId, views);
      record = { blocks: effect.blocks };
      usage = effect.usage;
      summary = effect.summary;
    } catch (err) {
      if ((err as { retryable?: unknown }).retryable === true && !lastDelivery) {
        throw err;
      }
      // The edge settles as failed (its readers skip) and names graph.end, which fails the run
      // once the step's other edges are in: an error on one action of a parallel batch alone
      // would not end the run, since the orchestrator reads the error of a step's last action.
      const message = (err as Error).message;
      return {
        answer: {
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
        },
        successors: [PUPPY_END_NODE],
      };
    }
  }
  const successors = successorEdges(workflow, edgeId).map(graphNodeName);
  const next = successors.length ? successors : [PUPPY_END_NODE];
  const result: PuppyResult = {
    edge: edgeId,
    status: status === 'skip' ? 'skipped' : 'ran',
    written: Object.keys(record.blocks),
  };
  return {
    answer: {
      summary,
      result,
      next,
      patch: [{ op: 'add', path: `/graph/outputs/${pointer(edgeId)}`, value: storedRecord(record) }],
      ...(usage ? { usage } : {}),
    },
    successors: next,
  };
}

/** A workflow step that fails the run: `edge` (or the node) named, the answer blocks so far kept. */
export function puppyFailure(
  message: string,
  edge: string,
  outputs: Record<string, unknown>,
  workflow: PuppyWorkflow,
): NodeAnswer {
  return {
    summary: `${edge} failed: ${message}`,
    result: { edge, status: 'failed', ...puppyAnswer(workflow, outputs) } satisfies PuppyResult,
    next: [],
    error: { code: 'component_failed', message: `edge ${edge}: ${message}` },
  };
}

/** The answer blocks (isOutput, else those no edge reads) that were written, and their text. */
export function puppyAnswer(
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
