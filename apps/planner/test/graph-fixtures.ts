import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The graph e2e specs' fixtures: RAGFlow DSLs and what the upstream engines did with them
// (libs/graph/fixtures, Apache-2.0; see its README). Each spec types the golden fields it reads.

export const FIXTURES = join(__dirname, '../../../libs/graph/fixtures');

/** A golden (`expected/<fixture>.<scenario>.json`), typed by the caller. */
export const golden = <G>(name: string): G =>
  JSON.parse(readFileSync(join(FIXTURES, 'expected', `${name}.json`), 'utf8')) as G;

/** A RAGFlow DSL as the editor exported it (`ragflow/<file>`). */
export const dsl = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, 'ragflow', name), 'utf8')) as Record<string, unknown>;
