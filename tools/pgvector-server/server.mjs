// A real Postgres engine with the real pgvector extension, for tests and benchmarks on machines
// whose Postgres has no pgvector: PGlite (Postgres compiled to WebAssembly) with its pgvector
// build, served over the Postgres wire protocol. Prints one JSON line {"port"} once listening;
// stops on SIGTERM/SIGINT. Plain ESM so it runs without a build (and outside jest's module VM).
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const db = await PGlite.create({ extensions: { vector } });
const server = new PGLiteSocketServer({
  db,
  host: '127.0.0.1',
  port: Number(process.env.PGVECTOR_SERVER_PORT ?? 0),
  maxConnections: 8,
});
await server.start();
const port = Number(server.getServerConn().split(':').pop());
process.stdout.write(`${JSON.stringify({ port })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop();
  await db.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
