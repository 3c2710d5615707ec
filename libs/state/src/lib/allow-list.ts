import { GRAPH_ENTRY_NODE, type JsonPatchOperation, componentIdOfNode } from '@switchyard/contracts';
import { DeltaRejectedException, DeltaRejectionCode } from './state.exception';

// Which top-level fields of RuntimeState a node may patch. `version`, `action_history` and
// `usage` belong to the reducer alone; `thread_id` never changes.
const BY_NODE: Record<string, readonly string[]> = {
  // The orchestrator opens a turn with the start action.
  start: ['run_id', 'turn', 'prompts', 'task_goals', 'todos', 'chat_history', 'origin_files'],
  intake: ['task_goals', 'scenario', 'output_style', 'output_structure', 'user_context'],
  planner: ['task_goals', 'todos', 'scenario', 'output_style', 'output_structure'],
  reflection: ['todos'],
  memory: ['memory'],
  retrieval: ['memory'],
  output: ['chat_history', 'output_structure'],
};
// Nodes not named above are tools served by the tool-executor.
const BY_SERVICE: Record<string, readonly string[]> = {
  'tool-executor': ['preprocessed_files'],
};

export function allowedPaths(node: string, service?: string): readonly string[] {
  if (componentIdOfNode(node) !== undefined) {
    return ['graph'];
  }
  // Own properties only: a node may be called `constructor`.
  if (Object.hasOwn(BY_NODE, node)) {
    return BY_NODE[node];
  }
  return service && Object.hasOwn(BY_SERVICE, service) ? BY_SERVICE[service] : [];
}

/** The top-level field a JSON Pointer addresses (`/todos/0/1/status` → `todos`). */
export function topLevelField(pointer: string): string {
  if (!pointer.startsWith('/')) {
    throw new DeltaRejectedException(
      DeltaRejectionCode.PatchFailed,
      `patch path "${pointer}" is not a JSON Pointer`,
    );
  }
  return pointer.slice(1).split('/')[0].replace(/~1/g, '/').replace(/~0/g, '~');
}

/** What a node may write beyond its allow-list, as the canvas says (the caller reads it). */
export interface PatchGrants {
  /**
   * The node is a VariableAssigner: it may set any component's outputs, as RAGFlow's
   * `set_variable_value` does (`Loop:Grow@total`: the enclosing Loop's variables).
   */
  assignsOutputs?: boolean;
}

/** Throws unless every operation of `patch` stays inside the node's allow-list. */
export function assertPatchAllowed(
  node: string,
  service: string | undefined,
  patch: readonly JsonPatchOperation[],
  grants: PatchGrants = {},
): void {
  const allowed = allowedPaths(node, service);
  for (const op of patch) {
    const field = topLevelField(op.path);
    if (!allowed.includes(field)) {
      throw new DeltaRejectedException(
        DeltaRejectionCode.PatchNotAllowed,
        `node "${node}" may not patch "${op.path}" (allowed: ${allowed.length ? allowed.join(', ') : 'nothing'})`,
      );
    }
    assertGraphPatchOwned(node, op.path, grants);
  }
}

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const OUTPUTS = '/graph/outputs/';

// A graph component writes its own outputs and the canvas variables (a VariableAssigner: any
// component's outputs too); only Begin, which opens the canvas each turn, may write the whole
// `graph` field.
function assertGraphPatchOwned(node: string, path: string, grants: PatchGrants): void {
  const component = componentIdOfNode(node);
  if (component === undefined || node === GRAPH_ENTRY_NODE) {
    return;
  }
  if (grants.assignsOutputs && path.startsWith(OUTPUTS) && path.length > OUTPUTS.length) {
    return;
  }
  const own = `${OUTPUTS}${escapePointer(component)}`;
  const owned = [own, '/graph/globals'].some((p) => path === p || path.startsWith(`${p}/`));
  if (!owned) {
    throw new DeltaRejectedException(
      DeltaRejectionCode.PatchNotAllowed,
      `component node "${node}" may only patch ${own} and /graph/globals, not "${path}"`,
    );
  }
}

/**
 * Whether a component node's patch writes another component's outputs: only a VariableAssigner
 * may, so the caller reads the canvas (to grant `assignsOutputs`) only then.
 */
export function patchesOtherOutputs(node: string, patch: readonly JsonPatchOperation[]): boolean {
  const component = componentIdOfNode(node);
  if (component === undefined || node === GRAPH_ENTRY_NODE) {
    return false;
  }
  const own = `${OUTPUTS}${escapePointer(component)}`;
  return patch.some((op) => op.path.startsWith(OUTPUTS) && op.path !== own && !op.path.startsWith(`${own}/`));
}
