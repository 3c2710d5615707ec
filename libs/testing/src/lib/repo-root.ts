import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root (where nx.json is), from the sources (jest) or from dist/ (benchmarks). */
export const REPO_ROOT = ((dir: string): string => {
  while (!existsSync(join(dir, 'nx.json')) && dirname(dir) !== dir) {
    dir = dirname(dir);
  }
  return dir;
})(__dirname);
