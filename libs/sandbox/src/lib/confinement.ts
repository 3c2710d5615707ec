import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The unprivileged account the Python child runs as (Debian's `nobody`/`nogroup`). */
export const NOBODY_UID = 65534;
export const NOBODY_GID = 65534;

/** The OS-level walls around a Python child; `missing` says which one this machine cannot give. */
export type Confinement = { available: true; cgroups: MemoryCgroups } | { available: false; missing: string };

/**
 * Checks what the Python sandbox needs, in order, and names the first thing missing: root (to
 * enter a network namespace and drop to nobody), `unshare` and `setpriv` (util-linux), and a
 * writable memory cgroup (v1 `memory` controller or a v2 hierarchy with `memory` delegable).
 */
export function probeConfinement(): Confinement {
  if (process.platform !== 'linux') {
    return { available: false, missing: `Linux (this is ${process.platform})` };
  }
  if (process.getuid?.() !== 0) {
    return {
      available: false,
      missing: 'root privileges (to enter a network namespace and drop to user nobody)',
    };
  }
  for (const tool of ['unshare', 'setpriv']) {
    const r = spawnSync(tool, ['--version'], { stdio: 'ignore' });
    if (r.error || r.status !== 0) {
      return { available: false, missing: `the "${tool}" command (Debian package util-linux)` };
    }
  }
  const netns = spawnSync('unshare', ['-n', 'true'], { stdio: 'ignore' });
  if (netns.status !== 0) {
    return { available: false, missing: 'network namespaces (`unshare -n` failed)' };
  }
  const cgroups = MemoryCgroups.open();
  if (typeof cgroups === 'string') {
    return { available: false, missing: cgroups };
  }
  return { available: true, cgroups };
}

/** One child's memory cgroup: a limit, the child moved in, its OOM kills read back, removed. */
export interface MemoryCgroup {
  dir: string;
  enter(pid: number): void;
  /** The kernel killed a process of the group for memory. */
  oomKilled(): boolean;
  remove(): Promise<void>;
}

let counter = 0;

/** The memory cgroups the sandbox makes its children in (under the service's own cgroup). */
export class MemoryCgroups {
  private constructor(
    private readonly base: string,
    private readonly version: 1 | 2,
  ) {}

  /** The place to make cgroups in, or why there is none. */
  static open(): MemoryCgroups | string {
    const own = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
    const v1 = own.map((l) => l.split(':')).find((p) => p[1]?.split(',').includes('memory'));
    const candidates: { base: string; version: 1 | 2 }[] = [];
    if (v1 && existsSync('/sys/fs/cgroup/memory')) {
      candidates.push({ base: join('/sys/fs/cgroup/memory', v1[2]), version: 1 });
    }
    const v2 = own.map((l) => l.split(':')).find((p) => p[0] === '0' && p[1] === '');
    const v2root = existsSync('/sys/fs/cgroup/cgroup.controllers')
      ? '/sys/fs/cgroup'
      : '/sys/fs/cgroup/unified';
    if (v2 && existsSync(join(v2root, 'cgroup.controllers'))) {
      candidates.push({ base: join(v2root, v2[2]), version: 2 });
    }
    const problems: string[] = [];
    for (const c of candidates) {
      const groups = new MemoryCgroups(c.base, c.version);
      const problem = groups.check();
      if (!problem) {
        return groups;
      }
      problems.push(problem);
    }
    return `a writable memory cgroup (${problems.length ? problems.join('; ') : 'no memory controller is mounted'})`;
  }

  private check(): string | undefined {
    try {
      const probe = this.create(64);
      rmdirSync(probe.dir);
      return undefined;
    } catch (err) {
      return `cgroup v${this.version} at ${this.base}: ${(err as Error).message}`;
    }
  }

  create(limitMb: number): MemoryCgroup {
    const dir = join(this.base, `switchyard-sandbox-${process.pid}-${++counter}`);
    mkdirSync(dir);
    const bytes = String(limitMb * 1024 * 1024);
    try {
      if (this.version === 1) {
        writeFileSync(join(dir, 'memory.limit_in_bytes'), bytes);
        // With swap accounting, swap counts too: the limit is memory plus swap.
        if (existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) {
          writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), bytes);
        }
      } else {
        if (!existsSync(join(dir, 'memory.max'))) {
          // The memory controller must be enabled for the children of the service's cgroup.
          writeFileSync(join(this.base, 'cgroup.subtree_control'), '+memory');
        }
        writeFileSync(join(dir, 'memory.max'), bytes);
        writeFileSync(join(dir, 'memory.swap.max'), '0');
      }
    } catch (err) {
      rmdirSync(dir);
      throw err;
    }
    const version = this.version;
    return {
      dir,
      enter: (pid) => writeFileSync(join(dir, 'cgroup.procs'), String(pid)),
      oomKilled: () => {
        try {
          const text =
            version === 1
              ? readFileSync(join(dir, 'memory.oom_control'), 'utf8')
              : readFileSync(join(dir, 'memory.events'), 'utf8');
          const kills = /oom_kill (\d+)/.exec(text);
          if (kills) {
            return Number(kills[1]) > 0;
          }
          return version === 1 && Number(readFileSync(join(dir, 'memory.failcnt'), 'utf8')) > 0;
        } catch {
          return false;
        }
      },
      remove: async () => {
        // The group empties once the kernel has reaped the child; retry briefly.
        for (let i = 0; i < 50; i++) {
          try {
            rmdirSync(dir);
            return;
          } catch {
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      },
    };
  }
}
