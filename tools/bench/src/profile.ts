/** The parts of a V8 `.cpuprofile` (node --cpu-prof) the summary reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** The app whose dist/ code the profile ran (`?` when none). */
  service: string;
  totalMs: number;
  /** Sampled time outside `(idle)` and start-up: what serving took on the CPU, roughly. */
  busyMs: number;
  /** Time under module loading (`Module._load`): start-up, left out of everything else. */
  startupMs: number;
  functions: { name: string; where: string; selfMs: number }[];
  /** Self time per package (`node:` internals, `(native)` and our code by app/lib), most first. */
  packages: { name: string; selfMs: number }[];
}

/** The package a function belongs to: `pg`, `@nestjs/core`, `node:internal`, `libs/state` … */
export function packageOf(url: string): string {
  if (!url) {
    return '(native)';
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) {
    return url.split('/')[0];
  }
  const dist = /\/dist\/((?:apps|libs|tools)\/[^/]+)\//.exec(url);
  return dist ? dist[1] : url;
}

const APP = /\/dist\/(?:apps|tools)\/([^/]+)\//;

/** Where a function lives, short: the package for node_modules, the path under dist/ for ours. */
export function shortWhere(url: string, line: number): string {
  if (!url) {
    return '(native)';
  }
  const nm = url.lastIndexOf('/node_modules/');
  const path =
    nm >= 0
      ? url.slice(nm + '/node_modules/'.length)
      : url.replace(/^.*\/dist\//, '').replace(/^file:\/\//, '');
  return `${path}:${line + 1}`;
}

/** Self time per function (samples landing in it, not in its callees), most first. */
export function topSelfTime(profile: CpuProfile, top: number): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    for (const c of n.children ?? []) {
      parent.set(c, n.id);
    }
  }
  const loading = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)?.callFrame.functionName === 'Module._load') {
        return true;
      }
    }
    return false;
  };
  const self = new Map<string, { name: string; where: string; selfMs: number }>();
  const packages = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  let startupMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byId.get(id)?.callFrame;
    totalMs += ms;
    if (!frame || frame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    if (loading(id)) {
      startupMs += ms;
      return;
    }
    const pkg = packageOf(frame.url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    const name = frame.functionName || '(anonymous)';
    const where = shortWhere(frame.url, frame.lineNumber);
    const key = `${name} ${where}`;
    const entry = self.get(key) ?? { name, where, selfMs: 0 };
    entry.selfMs += ms;
    self.set(key, entry);
  });
  const service = profile.nodes.map((n) => APP.exec(n.callFrame.url)?.[1]).find(Boolean) ?? '?';
  return {
    service,
    totalMs,
    busyMs: totalMs - idleMs - startupMs,
    startupMs,
    functions: [...self.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top),
    packages: [...packages]
      .map(([name, selfMs]) => ({ name, selfMs }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top),
  };
}
