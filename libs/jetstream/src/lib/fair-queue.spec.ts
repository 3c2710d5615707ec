import { FairQueue } from './fair-queue';

const take = <T>(q: FairQueue<T>, n: number): T[] =>
  Array.from({ length: n }, () => q.shift()).filter((x): x is T => x !== undefined);

describe('FairQueue', () => {
  it("starts a newly busy tenant's item ahead of another tenant's backlog", () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 100; i++) {
      q.push(`a${i}`, { tenant: 'A', priority: 'interactive' });
    }
    expect(take(q, 3)).toEqual(['a0', 'a1', 'a2']);
    q.push('b0', { tenant: 'B', priority: 'interactive' });
    // B waits for one item of A at most, not for A's 97 others.
    expect(take(q, 2)).toContain('b0');
    expect(q.size).toBe(96);
  });

  it('serves two busy tenants in turn, and by weight when weighted', () => {
    const even = new FairQueue<string>();
    const weighted = new FairQueue<string>((t) => (t === 'A' ? 3 : 1));
    for (const q of [even, weighted]) {
      for (let i = 0; i < 400; i++) {
        q.push('A', { tenant: 'A', priority: 'interactive' });
        q.push('C', { tenant: 'C', priority: 'interactive' });
      }
    }
    const count = (xs: string[], t: string) => xs.filter((x) => x === t).length;
    const first = take(even, 200);
    expect(count(first, 'A')).toBe(100);
    const served = take(weighted, 400);
    expect(count(served, 'A')).toBe(300);
    expect(count(served, 'C')).toBe(100);
  });

  it("puts a tenant's interactive items before its batch items, in arrival order each", () => {
    const q = new FairQueue<string>();
    q.push('batch1', { tenant: 'A', priority: 'batch' });
    q.push('batch2', { tenant: 'A', priority: 'batch' });
    q.push('live1', { tenant: 'A', priority: 'interactive' });
    q.push('live2', { tenant: 'A', priority: 'interactive' });
    expect(take(q, 4)).toEqual(['live1', 'live2', 'batch1', 'batch2']);
  });

  it('does not let a tenant bank credit while it is idle', () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 50; i++) {
      q.push('A', { tenant: 'A', priority: 'interactive' });
    }
    take(q, 40);
    // B arrives late with a backlog of its own: it shares from now on instead of taking 40 in a row.
    for (let i = 0; i < 20; i++) {
      q.push('B', { tenant: 'B', priority: 'interactive' });
    }
    const next = take(q, 10);
    expect(next.filter((x) => x === 'B').length).toBeLessThanOrEqual(6);
    expect(next.filter((x) => x === 'A').length).toBeGreaterThanOrEqual(4);
  });

  it('hands everything back with takeAll and treats a bad weight as 1', () => {
    const q = new FairQueue<number>(() => Number.NaN);
    q.push(1, { tenant: '', priority: 'interactive' });
    q.push(2, { tenant: 'T', priority: 'batch' });
    expect(q.waitingByTenant()).toEqual(
      new Map([
        ['', 1],
        ['T', 1],
      ]),
    );
    expect(q.shift()).toBe(1);
    expect(q.takeAll()).toEqual([2]);
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
  });
});
