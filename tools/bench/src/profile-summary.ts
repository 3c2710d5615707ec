// Summarises the V8 CPU profiles the services wrote under BENCH_CPU_PROF: per service, the
// functions with the most self time. Usage: node dist/tools/bench/src/profile-summary.js <dir> [top]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { topSelfTime, type CpuProfile } from './profile';

function main(): void {
  const [dir, topArg] = process.argv.slice(2);
  if (!dir) {
    throw new Error('usage: profile-summary.js <dir> [top]');
  }
  const top = Number(topArg ?? 15);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const summary = topSelfTime(profile, top);
    process.stdout.write(
      `\n### ${summary.service} (${(summary.totalMs / 1000).toFixed(1)} s sampled, ${(summary.busyMs / 1000).toFixed(1)} s busy after start-up, ${(summary.startupMs / 1000).toFixed(1)} s start-up)\n\n`,
    );
    process.stdout.write(
      `By package: ${summary.packages.map((p) => `${p.name} ${((100 * p.selfMs) / summary.busyMs).toFixed(0)}%`).join(', ')}\n\n`,
    );
    process.stdout.write('| self ms | % of busy | function | where |\n| --: | --: | :-- | :-- |\n');
    for (const f of summary.functions) {
      process.stdout.write(
        `| ${f.selfMs.toFixed(0)} | ${((100 * f.selfMs) / summary.busyMs).toFixed(1)} | \`${f.name}\` | ${f.where} |\n`,
      );
    }
  }
}

main();
