export { applyDelta, emptyState, addUsage, sumUsages, openTurnPatch } from './lib/apply-delta';
export {
  type PatchGrants,
  allowedPaths,
  assertPatchAllowed,
  patchesOtherOutputs,
  topLevelField,
} from './lib/allow-list';
export { StateCache, type StateSource, type StateCacheStats } from './lib/state-cache';
export { RecentDeltas } from './lib/recent-deltas';
export { DeltaRejectedException, DeltaRejectionCode } from './lib/state.exception';
export {
  todoGraphProblems,
  criticalPathLengths,
  withCriticalPaths,
  allSettled,
  failBlockedTodos,
  readyTodos,
  nextRetryAt,
  retryBackoffMs,
  recordFailedAttempt,
  completeTodo,
  type AttemptFailure,
} from './lib/todo-graph';
export { rewindPatch, forkDelta } from './lib/fork';
export { dataCatalogue } from './lib/data-catalogue';
export { MemoryStateSource } from './lib/memory-state-source';
export { type StateSourceUnderTest, stateSourceConformance } from './lib/state-source.conformance';
