import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memory: string;
  node: string;
  os: string;
}

/** What the benchmark ran on: CPU model (from /proc/cpuinfo), cores, memory, Node version. */
export function machine(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    cpu = m ? m[1].trim() : cpu;
  } catch {
    // not Linux: keep what os.cpus() says
  }
  let os = `${process.platform} ${process.arch}`;
  try {
    const m = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    os = m ? `${m[1]} (${process.arch})` : os;
  } catch {
    // keep the platform name
  }
  return {
    cpu,
    cores: cpus().length,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    os,
  };
}

export function describeMachine(m: Machine, extra: string[] = []): string {
  return [`${m.cpu}, ${m.cores} cores, ${m.memory} memory`, `Node ${m.node}, ${m.os}`, ...extra].join('; ');
}
