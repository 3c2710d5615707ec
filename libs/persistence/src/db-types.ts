// `npm run db:types`: regenerates libs/persistence/src/lib/kysely/db.ts (the Kysely table types)
// from a scratch database migrated next to DATABASE_URL's (default: the local server).
import { writeFileSync } from 'node:fs';
import { DB_TYPES_FILE, generateDbTypes } from './lib/kysely/generate-db-types';

const server = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
generateDbTypes(server).then(
  (text) => {
    writeFileSync(DB_TYPES_FILE, text);
    process.stdout.write(`wrote ${DB_TYPES_FILE}\n`);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
