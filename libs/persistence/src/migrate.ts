// `npm run migrate`: creates the database if needed and applies pending migrations.
import 'reflect-metadata';
import { createDataSource, ensureDatabase, runMigrationsLocked } from './lib/data-source';

async function main(): Promise<void> {
  const url = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/switchyard';
  await ensureDatabase(url);
  const ds = await createDataSource(url, { poolSize: 2, name: 'switchyard-migrate' });
  try {
    const applied = await runMigrationsLocked(ds);
    process.stdout.write(`${JSON.stringify({ msg: 'migrations applied', applied })}\n`);
  } finally {
    await ds.destroy();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`migration failed: ${err.message}\n`);
  process.exit(1);
});
