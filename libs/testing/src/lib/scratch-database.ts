import pg from 'pg';

/** Drops the database `url` names (connected through `postgres`), its sessions included. */
export async function dropDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  const name = decodeURIComponent(admin.pathname.slice(1));
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The `switchyard_test` database on DATABASE_URL's server (the unit specs' shared database). */
export function testDatabaseUrl(): string {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/switchyard_test';
  return url.toString();
}
