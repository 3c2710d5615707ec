import { type CpuProfile, packageOf, shortWhere, topSelfTime } from './profile';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

describe(topSelfTime.name, () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('parse', '/r/node_modules/zod/lib/types.js', 9) },
      { id: 4, callFrame: frame('execute', 'file:///r/dist/apps/run-orchestrator/src/app/x.js', 0) },
      { id: 5, callFrame: frame('Module._load', 'node:internal/modules/cjs/loader', 1), children: [6] },
      { id: 6, callFrame: frame('wrapSafe', 'node:internal/modules/cjs/loader', 2) },
    ],
    samples: [2, 3, 3, 4, 2, 6],
    timeDeltas: [1000, 2000, 3000, 500, 4000, 7000],
  };

  it('adds up self time per function and package, idle and start-up apart, most first, and names the app', () => {
    expect(topSelfTime(profile, 10)).toEqual({
      service: 'run-orchestrator',
      totalMs: 17.5,
      busyMs: 5.5,
      startupMs: 7,
      functions: [
        { name: 'parse', where: 'zod/lib/types.js:10', selfMs: 5 },
        { name: 'execute', where: 'apps/run-orchestrator/src/app/x.js:1', selfMs: 0.5 },
      ],
      packages: [
        { name: 'zod', selfMs: 5 },
        { name: 'apps/run-orchestrator', selfMs: 0.5 },
      ],
    });
  });

  it('names a tool run as a service (tools/bench-nodes)', () => {
    const nodes = [{ id: 1, callFrame: frame('f', 'file:///r/dist/tools/bench-nodes/src/main.js') }];
    expect(topSelfTime({ nodes, samples: [], timeDeltas: [] }, 1).service).toBe('bench-nodes');
  });

  it('keeps only the top entries', () => {
    expect(topSelfTime(profile, 1).functions.map((f) => f.name)).toEqual(['parse']);
  });
});

describe(shortWhere.name, () => {
  it.each([
    ['', 0, '(native)'],
    ['node:internal/streams/readable', 4, 'node:internal/streams/readable:5'],
    ['/a/node_modules/pg/lib/client.js', 1, 'pg/lib/client.js:2'],
  ])('%s:%d → %s', (url, line, want) => {
    expect(shortWhere(url, line)).toBe(want);
  });
});

describe(packageOf.name, () => {
  it.each([
    ['', '(native)'],
    ['node:internal/streams/readable', 'node:internal'],
    ['/a/node_modules/pg/lib/client.js', 'pg'],
    ['/a/node_modules/@nestjs/core/router/x.js', '@nestjs/core'],
    ['file:///a/dist/libs/state/src/lib/apply-delta.js', 'libs/state'],
  ])('%s → %s', (url, want) => {
    expect(packageOf(url)).toBe(want);
  });
});
