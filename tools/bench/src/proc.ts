import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** user+sys CPU of a process from the text of /proc/<pid>/stat, in clock ticks. */
export function cpuTicksOf(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  return Number(rest[11]) + Number(rest[12]);
}

/** Resident memory of a process from the text of /proc/<pid>/status, in bytes. */
export function rssOf(status: string): number {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** CPU time (user+sys) a process has used so far, in ms; 0 when it is gone. */
export function cpuMs(pid: number): number {
  try {
    return (cpuTicksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1000) / clockTicks();
  } catch {
    return 0;
  }
}

/** Resident memory of a process now, in bytes (NaN when it is gone). */
export function rss(pid: number): number {
  try {
    return rssOf(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return Number.NaN;
  }
}

/** CPU used by a set of processes between `start()` and `stop()`, in ms. */
export class CpuMeter {
  private readonly before = new Map<number, number>();
  /** The last measurement by process name (`nameOf`; unnamed processes under "other"). */
  breakdown = new Map<string, number>();

  /** `pids` is asked again at stop: processes that appeared meanwhile count from 0. */
  constructor(
    private readonly pids: () => Promise<number[]>,
    private readonly nameOf: (pid: number) => string | undefined = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.before.clear();
    for (const pid of await this.pids()) {
      this.before.set(pid, cpuMs(pid));
    }
  }

  async stop(): Promise<number> {
    let ms = 0;
    this.breakdown = new Map();
    for (const pid of new Set([...this.before.keys(), ...(await this.pids())])) {
      const used = Math.max(0, cpuMs(pid) - (this.before.get(pid) ?? 0));
      const name = this.nameOf(pid) ?? 'other';
      this.breakdown.set(name, (this.breakdown.get(name) ?? 0) + used);
      ms += used;
    }
    return ms;
  }
}
