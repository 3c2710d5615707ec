import type { MeteredCall } from '@switchyard/contracts';
import type { UsageMeter } from './usage-meter';

/** How long a call's row may wait for its task's delta before the node service writes it. */
export const UNSENT_CALL_MS = 20;
/** Rows a delta carries at most; a task's calls beyond wait for no delta. */
const MAX_CARRIED = 64;

/**
 * The model calls of one task that no write has taken yet. A call of the task leaves its row here
 * instead of writing it and waiting for the commit: the task's delta carries the rows
 * (`DeltaMessage.usage_calls`) and the step that applies the delta writes them in its own
 * transaction — one commit for the step and its calls, and the node's delta goes out a
 * round trip sooner (tools/bench/PROFILE.md, round 12).
 *
 * What keeps the guarantee "a call made is billed, once": a row waits here at most
 * `UNSENT_CALL_MS` (then the meter writes it: a long tool call or a crash later cannot lose
 * it), the delta goes out only once the rows handed to the meter are committed (so the run's usage
 * is complete when its step is), every path on which no delta will go (a retry, a cancel, a
 * hand-back, a delta NATS refused) writes the rest (`flush`), and `call_id` makes any second
 * write of a call a no-op. Budgets count the tokens still here (`unwrittenTokens`).
 */
export class TaskCalls {
  private pending: MeteredCall[] = [];
  private readonly writes: Promise<void>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private meter: UsageMeter | undefined;
  private closed = false;

  constructor(private readonly unsentMs = UNSENT_CALL_MS) {}

  /**
   * A call's row. Kept for the delta; once the delta took the rows (a call the node's code did not
   * wait for), written now — the promise, which the call awaits, resolves once it is committed.
   */
  add(call: MeteredCall, meter: UsageMeter): Promise<void> | undefined {
    this.meter = meter;
    if (this.closed) {
      return meter.record(call);
    }
    this.pending.push(call);
    if (this.pending.length >= MAX_CARRIED) {
      this.writePending();
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.writePending(), this.unsentMs);
      this.timer.unref();
    }
    return undefined;
  }

  /** The tokens of `tenantId`'s calls made and not written yet. */
  unwrittenTokens(tenantId: string): number {
    let n = 0;
    for (const c of this.pending) {
      if (c.tenant_id === tenantId) {
        n += c.total_tokens;
      }
    }
    return n;
  }

  /**
   * The rows the delta carries. Closes the list (later calls write their own rows) and resolves
   * once every row handed to the meter before is committed.
   */
  async take(): Promise<MeteredCall[]> {
    this.closed = true;
    this.stopTimer();
    const rows = this.pending;
    this.pending = [];
    await Promise.all(this.writes);
    return rows;
  }

  /** No delta will carry the rows: writes them (and `rows`, taken earlier), resolving once committed. */
  async flush(rows: MeteredCall[] = []): Promise<void> {
    this.closed = true;
    this.pending.push(...rows);
    this.writePending();
    await Promise.all(this.writes);
  }

  private writePending(): void {
    this.stopTimer();
    const rows = this.pending;
    this.pending = [];
    if (rows.length && this.meter) {
      const meter = this.meter;
      // (UsageMeter.record never rejects: a row it cannot write is logged.)
      this.writes.push(...rows.map((r) => meter.record(r)));
    }
  }

  private stopTimer(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
