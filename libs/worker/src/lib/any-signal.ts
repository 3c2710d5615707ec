/** A signal that aborts with the first of its sources, and the way to let go of them. */
export interface CombinedSignal {
  signal: AbortSignal;
  /** Stops listening to the sources (the combined signal no longer follows them). */
  dispose(): void;
}

/**
 * Aborts when any of `signals` does, with its reason — what `AbortSignal.any` does, without its
 * bookkeeping: Node 20's keeps a WeakRef to the combined signal in every source and a
 * FinalizationRegistry entry, which only a major collection can clear, so each task's combined
 * signal outlived the young generation (2 KB of a pure step's promoted bytes in a node service,
 * tools/bench/PROFILE.md, round 14). Plain listeners, removed by `dispose` when the work is done.
 */
export function anySignal(signals: readonly AbortSignal[]): CombinedSignal {
  const controller = new AbortController();
  const already = signals.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const dispose = (): void => {
    for (const s of signals) {
      s.removeEventListener('abort', onAbort);
    }
  };
  function onAbort(this: AbortSignal): void {
    dispose();
    controller.abort(this.reason);
  }
  for (const s of signals) {
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: controller.signal, dispose };
}
