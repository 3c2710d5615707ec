import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Now, as the results files print it: `2026-11-27 09:41:00 UTC`. */
export function utcNow(): string {
  return new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** Writes a benchmark's results file: title, date and machine, its table and notes, the load after. */
export function writeResultsFile(path: string, title: string, machineLine: string, body: string[]): void {
  writeFileSync(
    path,
    [
      `# ${title}`,
      '',
      `Last run: ${utcNow()}. Machine: ${machineLine}.`,
      '',
      ...body.flatMap((part) => [part, '']),
      `1-minute load average after the run: ${loadavg()[0].toFixed(2)}.`,
      '',
    ].join('\n'),
  );
}
