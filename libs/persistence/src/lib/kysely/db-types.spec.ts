// The Kysely table types (db.ts) against the schema our migrations build, on the real Postgres:
// a scratch database is migrated and its tables and columns (types, nullability, defaults) are
// generated again; any difference from the committed db.ts fails, naming `npm run db:types`.
import { readFileSync } from 'node:fs';
import { DB_TYPES_FILE, generateDbTypes } from './generate-db-types';

jest.setTimeout(60_000);

describe('the Kysely table types (db.ts)', () => {
  it('match the schema the migrations build', async () => {
    const server = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const generated = await generateDbTypes(server);
    const committed = readFileSync(DB_TYPES_FILE, 'utf8');
    if (generated !== committed) {
      const a = committed.split('\n');
      const b = generated.split('\n');
      const first = b.findIndex((line, i) => line !== a[i]);
      throw new Error(
        `libs/persistence/src/lib/kysely/db.ts is out of date with the migrations: run \`npm run db:types\` ` +
          `(first difference at line ${first + 1}: committed ${JSON.stringify(a[first])}, ` +
          `migrated ${JSON.stringify(b[first])})`,
      );
    }
    // The types name every table the migrations create (a sanity check that they were read at all).
    expect(generated).toMatch(/export interface DB \{[\s\S]*\n {2}runs: Runs;/);
  });
});
