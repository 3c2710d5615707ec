#!/usr/bin/env node
// Compiles apps, libs and tools to dist/ with swc (decorator metadata on, tsconfig paths rewritten
// to relative requires), so `node dist/apps/<app>/src/main.js` runs without a loader.
// Type-checking is `npm run typecheck`; swc only transpiles. Usage: build.mjs [app ...] (the
// argument only narrows what is reported: the whole tree builds in about a second).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sources = [];
for (const group of ['apps', 'libs', 'tools']) {
  for (const name of readdirSync(join(root, group))) {
    if (existsSync(join(root, group, name, 'src'))) {
      sources.push(`${group}/${name}/src`);
    }
  }
}
const apps = process.argv.slice(2);
for (const app of apps) {
  if (!existsSync(join(root, 'apps', app, 'src', 'main.ts'))) {
    process.stderr.write(`build: no app named "${app}" (expected apps/${app}/src/main.ts)\n`);
    process.exit(2);
  }
}
execFileSync(join(root, 'node_modules', '.bin', 'swc'), [...sources, '-d', 'dist', '--config-file', '.swcrc', '--quiet'], {
  cwd: root,
  stdio: 'inherit',
});
// The console: static files the gateway serves at /console (vite, about a second).
execFileSync(join(root, 'node_modules', '.bin', 'vite'), ['build', '--config', 'apps/console/vite.config.mts', '--logLevel', 'warn'], {
  cwd: root,
  stdio: 'inherit',
});
process.stdout.write(`built ${apps.length ? apps.join(', ') : 'everything'} into dist/\n`);
