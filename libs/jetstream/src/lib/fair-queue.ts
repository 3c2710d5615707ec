/** Who a queued item works for: its tenant (its share) and its priority within the tenant. */
export interface FairKey {
  /** '' for items of no tenant (they form one group of their own). */
  tenant: string;
  priority: 'interactive' | 'batch';
}

interface Lane<T> {
  interactive: T[];
  batch: T[];
  /** Virtual time at which the lane's next item is due (stride scheduling). */
  pass: number;
}

/**
 * Items waiting for a handler slot, handed out fairly across tenants: each tenant with items
 * waiting is served in proportion to its weight (stride scheduling: serving a tenant moves its
 * pass on by 1/weight, the lane with the smallest pass goes next), and within a tenant
 * interactive items go before batch ones, each in arrival order.
 *
 * A tenant that had nothing waiting starts at the current virtual time: it goes ahead of the
 * backlog of tenants that were served all along, but cannot bank credit while idle. So a tenant
 * with one task waiting behind another tenant's hundreds waits for one slot, not for the hundreds.
 */
export class FairQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** The pass of the item handed out last: where a newly busy tenant starts. */
  private now = 0;
  private count = 0;

  /** `weightOf`: a tenant's share (> 0; 1 by default); read each time an item is handed out. */
  constructor(private readonly weightOf: (tenant: string) => number = () => 1) {}

  get size(): number {
    return this.count;
  }

  push(item: T, key: FairKey): void {
    let lane = this.lanes.get(key.tenant);
    if (!lane) {
      lane = { interactive: [], batch: [], pass: this.now };
      this.lanes.set(key.tenant, lane);
    }
    lane[key.priority === 'batch' ? 'batch' : 'interactive'].push(item);
    this.count++;
  }

  /** The next item due, or undefined when none waits. */
  shift(): T | undefined {
    let best: [string, Lane<T>] | undefined;
    for (const entry of this.lanes) {
      if (!best || entry[1].pass < best[1].pass) {
        best = entry;
      }
    }
    if (!best) {
      return undefined;
    }
    const [tenant, lane] = best;
    const item = (lane.interactive.length ? lane.interactive : lane.batch).shift() as T;
    this.count--;
    this.now = lane.pass;
    const weight = this.weightOf(tenant);
    lane.pass += 1 / (Number.isFinite(weight) && weight > 0 ? weight : 1);
    if (lane.interactive.length + lane.batch.length === 0) {
      // An idle tenant keeps no state: it starts again at the virtual time when it comes back
      // (its pass ahead of that is forgiven — at most one stride).
      this.lanes.delete(tenant);
    }
    return item;
  }

  /** Every waiting item, the queue left empty (a drain hands them back). */
  takeAll(): T[] {
    const all: T[] = [];
    for (const lane of this.lanes.values()) {
      all.push(...lane.interactive, ...lane.batch);
    }
    this.lanes.clear();
    this.count = 0;
    return all;
  }

  /** Items waiting per tenant (for gauges). */
  waitingByTenant(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [tenant, lane] of this.lanes) {
      out.set(tenant, lane.interactive.length + lane.batch.length);
    }
    return out;
  }

  /** Applies `fn` to every waiting item (e.g. to keep its message in progress). */
  forEach(fn: (item: T) => void): void {
    for (const lane of this.lanes.values()) {
      lane.interactive.forEach(fn);
      lane.batch.forEach(fn);
    }
  }
}
