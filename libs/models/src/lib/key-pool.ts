/** What the pool needs of a key. */
export interface PoolKey {
  id: string;
  tenant_id: string | null;
  business_id?: string | null;
}

/**
 * In-process key choice: the business's own keys first, then the tenant's, then the shared keys,
 * each group in round-robin, skipping
 * keys that are resting after a 429 (until their Retry-After) or a failure. Cooldowns are per
 * process on purpose: each replica learns a key's limit from its own 429 at the cost of one call.
 */
export class KeyPool {
  private readonly restingUntil = new Map<string, number>();
  private readonly turn = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The keys usable by `tenantId` (and its `businessId`), in the order to try them: the
   * business's keys, the tenant's keys bound to no business, then shared ones, each group rotated
   * so successive calls spread over it. Keys of other tenants or other businesses never appear.
   */
  order<K extends PoolKey>(
    poolId: string,
    keys: readonly K[],
    tenantId: string | undefined,
    businessId?: string,
  ): K[] {
    const mine = (k: K) => tenantId !== undefined && k.tenant_id === tenantId;
    const business = businessId ? keys.filter((k) => mine(k) && k.business_id === businessId) : [];
    const own = keys.filter((k) => mine(k) && !k.business_id);
    const shared = keys.filter((k) => k.tenant_id === null);
    return [
      ...this.rotate(`${poolId}:${tenantId ?? ''}:${businessId ?? ''}`, business),
      ...this.rotate(`${poolId}:${tenantId ?? ''}`, own),
      ...this.rotate(poolId, shared),
    ];
  }

  private rotate<K>(id: string, keys: K[]): K[] {
    if (keys.length < 2) {
      return keys;
    }
    const n = this.turn.get(id) ?? 0;
    this.turn.set(id, n + 1);
    const start = n % keys.length;
    return [...keys.slice(start), ...keys.slice(0, start)];
  }

  rest(keyId: string, ms: number): void {
    this.restingUntil.set(keyId, this.now() + ms);
  }

  /** Milliseconds until the key may be used again (0 = now). */
  restingFor(keyId: string): number {
    const until = this.restingUntil.get(keyId);
    if (until === undefined) {
      return 0;
    }
    const left = until - this.now();
    if (left <= 0) {
      this.restingUntil.delete(keyId);
      return 0;
    }
    return left;
  }
}
