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
