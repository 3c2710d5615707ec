import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database of the benchmark's own on the server of `postgresUrl`, dropped by `drop()`. */
export class ScratchDatabase {
  private constructor(
    readonly name: string,
    /** The database's URL. */
    readonly url: string,
    private readonly adminUrl: string,
  ) {}

  static async create(postgresUrl: string, prefix: string): Promise<ScratchDatabase> {
    const name = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = new URL(postgresUrl);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } finally {
      await client.end();
    }
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    return new ScratchDatabase(name, url.toString(), admin.toString());
  }

  /**
   * A pool with an error listener: the database is dropped right after pool.end(), which resolves
   * before the idle connections have closed.
   */
  pool(max?: number): pg.Pool {
    const pool = new pg.Pool({ connectionString: this.url, ...(max ? { max } : {}) });
    pool.on('error', () => undefined);
    return pool;
  }

  async drop(): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect().catch(() => undefined);
    await client.query(`DROP DATABASE IF EXISTS "${this.name}" WITH (FORCE)`).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
