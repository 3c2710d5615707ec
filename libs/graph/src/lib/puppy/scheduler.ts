import { GraphErrorCode, GraphException } from '../graph.exception';
import type { PuppyWorkflow } from './workflow.schema';

/**
 * What `RuntimeState.graph.outputs` holds for a PuppyEngine run, by writer: the entry node's
 * `begin` record (the blocks that start processed: content from the workflow and the run's
 * inputs) and one record per edge that has settled (the blocks it wrote; `skipped` when it did
 * not run because a block it reads was never written).
 */
export interface EdgeRecord {
  blocks: Record<string, unknown>;
  skipped?: boolean;
  /** The edge failed with this message: it settled without writing, and the run fails at its end. */
  failed?: string;
}
/**
 * An {@link EdgeRecord} as the state stores it: the blocks as JSON text, because the state goes
 * through jsonb, which sorts object keys, and a structure's key order shows when it is spliced
 * into a prompt (Python's `str()` of a dict).
 */
export interface StoredEdgeRecord {
  blocks_json: string;
  skipped?: true;
  failed?: string;
}

export function storedRecord(record: EdgeRecord): StoredEdgeRecord {
  return {
    blocks_json: JSON.stringify(record.blocks),
    ...(record.skipped ? { skipped: true } : {}),
    ...(record.failed ? { failed: record.failed } : {}),
  };
}
export const ENTRY_RECORD = 'begin';
/** Ids the runtime's own nodes use: a workflow's edges may not have them. */
export const RESERVED_EDGE_IDS = new Set([ENTRY_RECORD, 'end']);

export type BlockState = 'processed' | 'pending' | 'skipped';
export interface BlockView {
  state: BlockState;
  content: unknown;
}
/** An edge's standing: settled (ran or skipped), waiting for an input, to be skipped, or ready. */
export type EdgeStatus = 'settled' | 'waiting' | 'skip' | 'ready';

/** The edge writing each block (a block has at most one writer; checked when saved). */
export function writers(workflow: PuppyWorkflow): Map<string, string> {
  const out = new Map<string, string>();
  for (const [edgeId, edge] of Object.entries(workflow.edges)) {
    for (const blockId of Object.keys(edge.data.outputs)) {
      if (!out.has(blockId)) {
        out.set(blockId, edgeId);
      }
    }
  }
  return out;
}

/** A record of the state, stored or not. */
export function recordOf(v: unknown): EdgeRecord | undefined {
  if (!v || typeof v !== 'object') {
    return undefined;
  }
  if (typeof (v as StoredEdgeRecord).blocks_json === 'string') {
    const stored = v as StoredEdgeRecord;
    return {
      blocks: JSON.parse(stored.blocks_json) as Record<string, unknown>,
      ...(stored.skipped ? { skipped: true } : {}),
      ...(stored.failed ? { failed: stored.failed } : {}),
    };
  }
  return 'blocks' in v ? (v as EdgeRecord) : undefined;
}

/**
 * Every block's state and content from the run's records: written by the entry or an edge =
 * processed; its writer settled without writing it (an untaken ifelse branch, a skipped edge) =
 * skipped; otherwise pending.
 */
export function blockViews(
  workflow: PuppyWorkflow,
  outputs: Record<string, unknown>,
): Record<string, BlockView> {
  const byWriter = writers(workflow);
  const views: Record<string, BlockView> = {};
  const entry = recordOf(outputs[ENTRY_RECORD]);
  for (const [blockId, block] of Object.entries(workflow.blocks)) {
    const writer = byWriter.get(blockId);
    const record = writer ? recordOf(outputs[writer]) : entry;
    if (record && Object.hasOwn(record.blocks, blockId)) {
      views[blockId] = { state: 'processed', content: record.blocks[blockId] };
    } else {
      views[blockId] = {
        state: writer && record ? 'skipped' : 'pending',
        content: block.data.content ?? null,
      };
    }
  }
  return views;
}

/**
 * PuppyEngine's readiness rule: an edge is ready when every block it reads is processed. Where
 * the reference engine would be stuck (a block it reads will never be written), the edge is
 * skipped instead, which settles its own outputs as skipped in turn.
 */
export function edgeStatus(
  workflow: PuppyWorkflow,
  edgeId: string,
  views: Record<string, BlockView>,
  outputs: Record<string, unknown>,
): EdgeStatus {
  if (recordOf(outputs[edgeId])) {
    return 'settled';
  }
  const states = Object.keys(workflow.edges[edgeId]?.data.inputs ?? {}).map(
    (id) => views[id]?.state ?? 'pending',
  );
  if (states.includes('pending')) {
    return 'waiting';
  }
  return states.includes('skipped') ? 'skip' : 'ready';
}

/** The edges that read a block the edge writes, in the workflow's order: what may be ready after it. */
export function successorEdges(workflow: PuppyWorkflow, edgeId: string): string[] {
  const written = new Set(Object.keys(workflow.edges[edgeId]?.data.outputs ?? {}));
  return Object.entries(workflow.edges)
    .filter(([id, e]) => id !== edgeId && Object.keys(e.data.inputs).some((b) => written.has(b)))
    .map(([id]) => id);
}

/** The edges ready when the run starts (the first parallel batch), in the workflow's order. */
export function startEdges(workflow: PuppyWorkflow, outputs: Record<string, unknown>): string[] {
  const views = blockViews(workflow, outputs);
  return Object.keys(workflow.edges).filter((id) => edgeStatus(workflow, id, views, outputs) === 'ready');
}

/** The edges that failed, with their messages, in the workflow's order. */
export function failedEdges(workflow: PuppyWorkflow, outputs: Record<string, unknown>): [string, string][] {
  return Object.keys(workflow.edges)
    .map((id): [string, string | undefined] => [id, recordOf(outputs[id])?.failed])
    .filter((e): e is [string, string] => e[1] !== undefined);
}

/** Every edge has settled: the run's blocks are final. */
export function allSettled(workflow: PuppyWorkflow, outputs: Record<string, unknown>): boolean {
  return Object.keys(workflow.edges).every((id) => recordOf(outputs[id]) !== undefined);
}

/** The blocks a run answers with: those marked `isOutput`, else those no edge reads. */
export function answerBlocks(workflow: PuppyWorkflow): string[] {
  const ids = Object.keys(workflow.blocks);
  const marked = ids.filter((id) => workflow.blocks[id].isOutput === true);
  if (marked.length) {
    return marked;
  }
  const read = new Set(Object.values(workflow.edges).flatMap((e) => Object.keys(e.data.inputs)));
  return ids.filter((id) => !read.has(id));
}

/** A run's own values for blocks: `inputs` keyed by block id or label, and its prompt. */
export interface RunBlockInputs {
  inputs?: Record<string, unknown>;
  prompt?: string;
}

const badInput = (block: string, message: string): never => {
  throw new GraphException(GraphErrorCode.MissingParam, `block ${block}: ${message}`, [
    { code: GraphErrorCode.MissingParam, block, field: 'inputs', message },
  ]);
};

/** The text blocks a prompt may fill: those marked `isInput`, else the text blocks no edge writes. */
export function promptBlocks(workflow: PuppyWorkflow): string[] {
  const byWriter = writers(workflow);
  const text = Object.keys(workflow.blocks).filter(
    (id) => workflow.blocks[id].type === 'text' && !byWriter.has(id),
  );
  const marked = text.filter((id) => workflow.blocks[id].isInput === true);
  return marked.length ? marked : text;
}

/**
 * The entry record: every block no edge writes, with its content — the workflow's, replaced by
 * the run's `inputs` (by block id, else by label) and, when exactly one text block can take it and
 * `inputs` leave it alone, by the prompt. A block that an edge reads but nothing fills (null
 * content, e.g. an external block not mounted) throws, naming it: PuppyEngine would be stuck.
 */
export function entryRecord(workflow: PuppyWorkflow, run: RunBlockInputs): EdgeRecord {
  const byWriter = writers(workflow);
  const blocks: Record<string, unknown> = {};
  for (const [id, block] of Object.entries(workflow.blocks)) {
    if (!byWriter.has(id) && block.data.content !== null && block.data.content !== undefined) {
      blocks[id] = block.data.content;
    }
  }
  const filled = new Set<string>();
  for (const [key, value] of Object.entries(run.inputs ?? {})) {
    let id = Object.hasOwn(workflow.blocks, key) ? key : undefined;
    if (!id) {
      const labelled = Object.keys(workflow.blocks).filter((b) => workflow.blocks[b].label === key);
      if (labelled.length > 1) {
        badInput(
          key,
          `the label "${key}" names ${labelled.length} blocks (${labelled.join(', ')}): use the block id`,
        );
      }
      id = labelled[0] ?? badInput(key, 'the workflow has no block with this id or label');
    }
    const writer = byWriter.get(id);
    if (writer) {
      badInput(id, `edge ${writer} writes this block: only blocks no edge writes take inputs`);
    }
    blocks[id] = value;
    filled.add(id);
  }
  const candidates = promptBlocks(workflow);
  if (run.prompt && candidates.length === 1 && !filled.has(candidates[0])) {
    blocks[candidates[0]] = run.prompt;
  }
  const read = new Set(Object.values(workflow.edges).flatMap((e) => Object.keys(e.data.inputs)));
  for (const id of read) {
    if (!byWriter.has(id) && !Object.hasOwn(blocks, id)) {
      badInput(
        id,
        'an edge reads this block but it has no content and no edge writes it: give it in the run’s inputs',
      );
    }
  }
  return { blocks };
}
