import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2';
import pg from 'pg';
import { type Action, ActionSchema, componentIdOfNode } from '@switchyard/contracts';
import { TestStack, waitFor } from '@switchyard/testing';

// sql_query end to end: a tenant registers a Postgres data source through the gateway (the DSN is
// write-only and sealed); runs whose planner calls sql_query get rows in the action result; writes,
// DDL, COPY … PROGRAM, server-file functions and statement chains are refused as observations (the
// table stays unchanged); the statement timeout, the row cap and the output cap (full output by
// reference) hold. The DSN uses the postgres superuser on purpose: the refusals must not depend on
// the role's privileges.

const ADMIN = 'admin-token-for-the-sql-e2e';
const PASSWORD = `dsn-pw-${randomBytes(6).toString('hex')}`;
const DB = `sy_sql_e2e_${randomBytes(4).toString('hex')}`;
const ROWS = 200;
const OUTPUT_CAP = 4096;

let stack: TestStack;
let dsn: string;
let otherKey: string;

function dbUrl(name: string, password?: string): string {
  const url = new URL(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/switchyard');
  url.pathname = `/${name}`;
  if (password) {
    url.password = password;
  }
  return url.toString();
}

async function onDb<T>(name: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: dbUrl(name) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const orderCount = () =>
  onDb(DB, async (c) => (await c.query('SELECT count(*)::int AS n FROM orders')).rows[0].n as number);

interface Run {
  runId: string;
  status: string;
  actions: Action[];
  sql: Action;
}

/** Posts a run and returns its sql_query action (the planner calls it as the prompt says). */
async function run(prompt: string): Promise<Run> {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt } });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let status = '';
  await waitFor(`the run "${prompt}" to end`, async () => {
    status = (await stack.api('GET', `/v1/runs/${runId}`)).body.status;
    return ['succeeded', 'failed', 'cancelled'].includes(status);
  });
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions as Action[];
  for (const a of actions) {
    expect(ActionSchema.safeParse(a).success).toBe(true);
  }
  const sql = actions.find((a) => a.node === 'sql_query');
  if (!sql) {
    throw new Error(`no sql_query action in ${actions.map((a) => a.node).join(' → ')}`);
  }
  return { runId, status, actions, sql };
}

/** A refused query: an observation on the action, the run goes on to reflection and succeeds. */
async function refused(sql: string, ds = 'shop'): Promise<{ code: string; message: string }> {
  const r = await run(`[sql] ds=${ds} SQL<<${sql}>>`);
  expect(r.status).toBe('succeeded');
  expect(r.sql.result).toBeNull();
  expect(r.sql.next).toEqual(['reflection']);
  expect(r.actions.map((a) => a.node)).toContain('reflection');
  expect(r.sql.error).toBeDefined();
  return r.sql.error!;
}

/** A graph agent Begin → ExeSQL:Q (its connection fields and SQL) → Message:Show (formalized_content). */
function exeSqlAgent(params: Record<string, unknown>) {
  const cpn = (name: string, p: Record<string, unknown>, down: string[], up: string[]) => ({
    obj: { component_name: name, params: p },
    downstream: down,
    upstream: up,
  });
  return stack.api('POST', '/v1/agents', {
    name: `exesql-${randomBytes(3).toString('hex')}`,
    kind: 'graph',
    dsl: {
      components: {
        begin: cpn('Begin', {}, ['ExeSQL:Q'], []),
        'ExeSQL:Q': cpn('ExeSQL', params, ['Message:Show'], ['begin']),
        'Message:Show': cpn('Message', { content: ['{ExeSQL:Q@formalized_content}'] }, [], ['ExeSQL:Q']),
      },
      globals: {},
      variables: {},
    },
  });
}

beforeAll(async () => {
  await onDb('postgres', (c) => c.query(`CREATE DATABASE ${DB}`));
  await onDb(DB, async (c) => {
    await c.query(
      'CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric, note text)',
    );
    await c.query(
      `INSERT INTO orders SELECT i, 'customer ' || i, i * 1.5, repeat('n', 200) FROM generate_series(1, ${ROWS}) i`,
    );
  });
  dsn = dbUrl(DB, PASSWORD);
  stack = await TestStack.start({
    script: 'apps/tool-executor/test/fixtures/sql.script.json',
    env: {
      SWITCHYARD_SQL_ALLOW_HOSTS: '127.0.0.1',
      SWITCHYARD_TOOL_OUTPUT_MAX_BYTES: String(OUTPUT_CAP),
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
    },
  });
  otherKey = (await stack.newTenant('other', ADMIN)).key;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await onDb('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`)).catch(() => undefined);
});

describe('data sources API', () => {
  it('registers a data source; the DSN is write-only and sealed in the database', async () => {
    const res = await stack.api('POST', '/v1/data-sources', {
      name: 'shop',
      kind: 'postgres',
      dsn,
      options: { statement_timeout_ms: 200, max_rows: 100 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'shop',
      kind: 'postgres',
      host: new URL(dsn).host,
      database: DB,
      options: { statement_timeout_ms: 200, max_rows: 100, max_bytes: 1024 * 1024 },
    });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(res.body).not.toHaveProperty('dsn');

    const list = await stack.api('GET', '/v1/data-sources');
    expect(list.status).toBe(200);
    expect(list.body.data_sources.map((d: { name: string }) => d.name)).toEqual(['shop']);
    expect(JSON.stringify(list.body)).not.toContain(PASSWORD);

    const rows = await stack.sql<{ dsn_sealed: string }>('SELECT dsn_sealed FROM data_sources');
    expect(rows).toHaveLength(1);
    expect(rows[0].dsn_sealed).toMatch(/^v1:/);
    expect(rows[0].dsn_sealed).not.toContain(PASSWORD);
    expect(rows[0].dsn_sealed).not.toContain(DB);
  });

  it('refuses a DSN that is not a postgres URL, a taken name, and hides data sources from other tenants', async () => {
    const bad = await stack.api('POST', '/v1/data-sources', {
      name: 'web',
      kind: 'postgres',
      dsn: 'http://x/y',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('postgres://');
    const hostParam = await stack.api('POST', '/v1/data-sources', {
      name: 'sneaky',
      kind: 'postgres',
      dsn: `${dsn}?host=/var/run/postgresql`,
    });
    expect(hostParam.status).toBe(400);
    expect(JSON.stringify(hostParam.body)).not.toContain(PASSWORD);
    const dup = await stack.api('POST', '/v1/data-sources', { name: 'shop', kind: 'postgres', dsn });
    expect(dup.status).toBe(409);
    const theirs = await stack.api('GET', '/v1/data-sources', undefined, {
      Authorization: `Bearer ${otherKey}`,
    });
    expect(theirs.body.data_sources).toEqual([]);
    const del = await stack.api(
      'DELETE',
      `/v1/data-sources/${(await stack.api('GET', '/v1/data-sources')).body.data_sources[0].id}`,
      undefined,
      {
        Authorization: `Bearer ${otherKey}`,
      },
    );
    expect(del.status).toBe(404);
  });
});

describe('sql_query', () => {
  it('is offered to the planner as a tool', async () => {
    const res = await stack.api('GET', '/v1/tools');
    const tool = (res.body.tools as { name: string; input_schema?: { properties?: object } }[]).find(
      (t) => t.name === 'sql_query',
    );
    expect(tool?.input_schema?.properties).toHaveProperty('sql');
  });

  it('returns the rows of a query in the action result', async () => {
    const r = await run(
      '[sql] ds=shop SQL<<SELECT id, customer, amount FROM orders WHERE id <= 3 ORDER BY id>>',
    );
    expect(r.status).toBe('succeeded');
    expect(r.sql.error).toBeUndefined();
    expect(r.sql.next).toEqual(['reflection']);
    expect(r.sql.result).toEqual({
      columns: ['id', 'customer', 'amount'],
      rows: [
        [1, 'customer 1', '1.5'],
        [2, 'customer 2', '3.0'],
        [3, 'customer 3', '4.5'],
      ],
      row_count: 3,
      truncated: false,
    });
  });

  it('passes parameters separately from the statement', async () => {
    const r = await run('[sql-param] ds=shop p1=42 SQL<<SELECT id, customer FROM orders WHERE id = $1>>');
    expect(r.sql.result).toMatchObject({ rows: [[42, 'customer 42']], row_count: 1 });
  });

  it.each([
    ['INSERT', "INSERT INTO orders VALUES (999, 'x', 1, 'y')", 'sql_forbidden', /INSERT/],
    ['UPDATE', "UPDATE orders SET customer = 'x'", 'sql_forbidden', /UPDATE/],
    [
      'DELETE in a CTE',
      'WITH d AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM d',
      'sql_forbidden',
      /DELETE/,
    ],
    ['DDL', 'DROP TABLE orders', 'sql_forbidden', /DROP/],
    ['COPY … TO PROGRAM', "COPY orders TO PROGRAM 'cat > /tmp/sy-sql-e2e'", 'sql_forbidden', /COPY/],
    ['pg_read_file', "SELECT pg_read_file('/etc/passwd')", 'sql_forbidden', /pg_read_file/],
    [
      'several statements',
      'SELECT 1; DELETE FROM orders',
      'sql_multiple_statements',
      /more than one statement/,
    ],
    [
      'set_config',
      "SELECT set_config('default_transaction_read_only', 'off', false)",
      'sql_forbidden',
      /set_config/,
    ],
  ])('refuses %s with a clear error and leaves the table unchanged', async (_what, sql, code, message) => {
    const error = await refused(sql);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(await orderCount()).toBe(ROWS);
  });

  it('enforces the data source statement timeout', async () => {
    const started = Date.now();
    const error = await refused('SELECT pg_sleep(5)');
    expect(error.code).toBe('sql_timeout');
    expect(error.message).toContain('200 ms');
    expect(Date.now() - started).toBeLessThan(4500);
  });

  it('reports SQL errors from Postgres as observations', async () => {
    const error = await refused('SELECT no_such_column FROM orders');
    expect(error.code).toBe('sql_error');
    expect(error.message).toMatch(/42703.*no_such_column/);
  });

  it('caps the rows at the max_rows argument and at the data source limit', async () => {
    const asked = await run('[sql-rows] ds=shop SQL<<SELECT id FROM orders ORDER BY id>>');
    expect(asked.sql.result).toEqual({
      columns: ['id'],
      rows: [[1], [2], [3]],
      row_count: 3,
      truncated: true,
      truncated_by: 'max_rows',
    });
    const capped = await run('[sql] ds=shop SQL<<SELECT id FROM orders ORDER BY id>>');
    expect(capped.sql.result).toMatchObject({ row_count: 100, truncated: true, truncated_by: 'max_rows' });
  });

  it('truncates a big result in the action and serves the full output by reference', async () => {
    const r = await run('[sql] ds=shop SQL<<SELECT id, note FROM orders ORDER BY id>>');
    const result = r.sql.result as {
      preview: { columns: string[]; rows: [number, string][]; row_count: number };
      output_truncated: boolean;
      output_bytes: number;
      reference: string;
    };
    expect(result.output_truncated).toBe(true);
    expect(result.reference).toMatch(/^tool-output:[0-9a-f-]{36}$/);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(OUTPUT_CAP);
    expect(result.preview.columns).toEqual(['id', 'note']);
    expect(result.preview.row_count).toBe(100);
    expect(result.preview.rows.length).toBeGreaterThan(0);
    expect(result.preview.rows.length).toBeLessThan(100);
    expect(result.preview.rows[0]).toEqual([1, 'n'.repeat(200)]);

    const full = await stack.api('GET', `/v1/runs/${r.runId}/tool-outputs/${result.reference}`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ tool: 'sql_query', run_id: r.runId, bytes: result.output_bytes });
    expect(full.body.content.rows).toHaveLength(100);
    expect(full.body.content.rows[99]).toEqual([100, 'n'.repeat(200)]);

    const other = await stack.api('GET', `/v1/runs/${r.runId}/tool-outputs/${result.reference}`, undefined, {
      Authorization: `Bearer ${otherKey}`,
    });
    expect(other.status).toBe(404);
  });

  it('refuses unknown data sources, private hosts not allowed, and the platform database', async () => {
    expect((await refused('SELECT 1', 'nope')).code).toBe('sql_unknown_data_source');

    const priv = await stack.api('POST', '/v1/data-sources', {
      name: 'internal',
      kind: 'postgres',
      dsn: `postgres://u:${PASSWORD}@10.1.2.3:5432/db`,
    });
    expect(priv.status).toBe(201);
    const privError = await refused('SELECT 1', 'internal');
    expect(privError.code).toBe('sql_data_source_forbidden');
    expect(privError.message).toContain('SWITCHYARD_SQL_ALLOW_HOSTS');
    expect(privError.message).not.toContain(PASSWORD);

    const ownUrl = new URL(stack.databaseUrl);
    ownUrl.password = PASSWORD;
    const own = await stack.api('POST', '/v1/data-sources', {
      name: 'platform',
      kind: 'postgres',
      dsn: ownUrl.toString(),
    });
    expect(own.status).toBe(201);
    const ownError = await refused('SELECT 1', 'platform');
    expect(ownError.code).toBe('sql_data_source_forbidden');
    expect(ownError.message).toContain("platform's own database");
  });

  it('never writes the DSN to the logs of any service', () => {
    for (const service of [
      'gateway',
      'tool-executor',
      'planner',
      'reflection',
      'run-orchestrator',
    ] as const) {
      expect(stack.log(service)).not.toContain(PASSWORD);
    }
    // The logs are real: the tool-executor did log the sql_query deltas.
    expect(stack.log('tool-executor')).toContain('sql_query');
  });
});

describe('full data by reference (seed 001: extract_data_by_path)', () => {
  it('answers from row 4,000 of a 5,000-row result the action shows only a preview of', async () => {
    await onDb(DB, async (c) => {
      await c.query('CREATE TABLE big (id int PRIMARY KEY, customer text NOT NULL)');
      await c.query(`INSERT INTO big SELECT i, 'customer ' || i FROM generate_series(1, 5000) i`);
    });
    const ds = await stack.api('POST', '/v1/data-sources', {
      name: 'warehouse',
      kind: 'postgres',
      dsn,
      options: { max_rows: 10_000 },
    });
    expect(ds.status).toBe(201);

    const r = await run('[sql-big] which customer placed order 4000?');
    expect(r.status).toBe('succeeded');
    const sql = r.sql.result as { output_truncated: boolean; output_shape: string; reference: string };
    expect(sql.output_truncated).toBe(true);
    expect(sql.output_shape).toContain('rows: array(5000) of array(2)');
    // The planner saw the data catalogue (its rule asks for it) and read one row by reference.
    const extract = r.actions.find((a) => a.node === 'extract_data_by_path');
    expect(extract?.error).toBeUndefined();
    expect(extract?.result).toEqual({
      reference: sql.reference,
      path: '/rows/3999',
      value: [4000, 'customer 4000'],
    });
    const answer = r.actions.filter((a) => a.node === 'planner').at(-1)?.result as { content?: string };
    expect(answer.content).toContain('customer 4000');
  });

  it('the output node reads kept data itself when the planner answered without it', async () => {
    const r = await run('[sql-big-output] who placed order 4000?');
    expect(r.status).toBe('succeeded');
    // The planner did not read it: the output node did, with the same tool, before answering.
    expect(r.actions.some((a) => a.node === 'extract_data_by_path')).toBe(false);
    const output = r.actions.find((a) => a.node === 'output')!;
    const reference = (r.sql.result as { reference: string }).reference;
    expect(output.preparation).toContain(`read kept data: ${reference}/rows/3999`);
    expect((output.result as { answer: string }).answer).toBe('Order 4000: [4000,"customer 4000"]');
    // Offered the tool (its rule needs it); the reference it read came from the prompt's catalogue.
    const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string | null }[];
    expect(requests.filter((q) => q.rule === 'output-bigout-extract')).toHaveLength(1);
    expect(requests.filter((q) => q.rule === 'output-bigout-answer')).toHaveLength(1);
  });

  it('says where a path breaks, and finds no output of another thread or tenant', async () => {
    const first = await run('[sql-big] which customer placed order 4000?');
    const reference = (first.sql.result as { reference: string }).reference;
    /** A run of `prompt` (as `key`'s tenant, on `threadId`): its extract_data_by_path action. */
    const extract = async (prompt: string, opts: { key?: string; threadId?: string } = {}) => {
      const as = opts.key ? { Authorization: `Bearer ${opts.key}` } : undefined;
      const body = { input: { prompt }, ...(opts.threadId ? { thread_id: opts.threadId } : {}) };
      const res = await stack.api('POST', '/v1/runs', body, as);
      expect(res.status).toBe(202);
      const runId = res.body.run_id as string;
      const ended = async () => (await stack.api('GET', `/v1/runs/${runId}`, undefined, as)).body.status;
      await waitFor('the run to end', async () => ['succeeded', 'failed'].includes(await ended()));
      const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`, undefined, as)).body
        .actions as Action[];
      return actions.find((a) => a.node === 'extract_data_by_path') as Action;
    };
    // A new thread (a run posted without thread_id makes its own): the output is not its thread's.
    const elsewhere = await extract(`[extract] ref=${reference} path=/rows/0`);
    expect(elsewhere.error).toEqual({
      code: 'data_not_found',
      message: `${reference} is not kept for this thread (unknown, or pruned by retention)`,
    });
    const otherTenant = await extract(`[extract] ref=${reference} path=/rows/0`, { key: otherKey });
    expect(otherTenant.error?.code).toBe('data_not_found');
    // On the thread that made it, a path past the rows says what is there instead.
    const threadId = (await stack.api('GET', `/v1/runs/${first.runId}`)).body.thread_id as string;
    const broken = await extract(`[extract] ref=${reference} path=/rows/9999`, { threadId });
    expect(broken.error).toEqual({
      code: 'data_not_found',
      message: `${reference} has nothing at "/rows/9999": "/rows" holds an array of 5000`,
    });
    const columns = await extract(`[extract] ref=${reference} path=/columns`, { threadId });
    expect(columns.result).toEqual({ reference, path: '/columns', value: ['id', 'customer'] });
  });
});

describe("a graph agent's ExeSQL (RAGFlow) on the tenant's data source", () => {
  /** Runs an ExeSQL agent (exeSqlAgent): the run as it ended and ExeSQL:Q's outputs. */
  async function exeSql(params: Record<string, unknown>) {
    const agent = await exeSqlAgent(params);
    expect(agent.status).toBe(201);
    const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt: 'go' } });
    expect(res.status).toBe(202);
    const run = await stack.ended(res.body.run_id as string);
    const actions = (await stack.api('GET', `/v1/runs/${res.body.run_id}/actions`)).body.actions as Action[];
    const q = actions.find((a) => componentIdOfNode(a.node) === 'ExeSQL:Q');
    return { run, outputs: (q?.result as { outputs?: Record<string, unknown> } | null)?.outputs };
  }

  const target = () => {
    const url = new URL(dsn);
    // The DSL's password is never used: the data source's own (sealed) credentials are.
    return {
      db_type: 'postgres',
      host: url.hostname,
      port: Number(url.port || 5432),
      database: DB,
      username: url.username,
      password: 'not-the-real-one',
    };
  };

  it('runs each statement read-only, refuses writes and reports a failing one as RAGFlow does; the table is untouched', async () => {
    const before = await orderCount();
    const { run, outputs } = await exeSql({
      ...target(),
      sql: 'SELECT id, customer, amount FROM orders ORDER BY id LIMIT 2; DELETE FROM orders; SELEC broken; DROP TABLE orders',
    });
    expect(run.status).toBe('succeeded');
    // pandas' to_markdown(index=False): no index column, numbers right-aligned, text (numeric comes as text) left.
    expect(run.output.answer).toContain(
      [
        '|   id | customer   | amount   |',
        '|-----:|:-----------|:---------|',
        '|    1 | customer 1 | 1.5      |',
      ].join('\n'),
    );
    expect(run.output.answer).toContain(
      'For security reasons, INSERT, UPDATE, and DELETE statements are not supported.',
    );
    expect(run.output.answer).toContain('SQL Execution Failed: SELEC broken');
    expect(run.output.answer).toMatch(/SQL Execution Failed: DROP TABLE orders\n.*refused/);
    expect(outputs?.['json']).toEqual([
      [
        { id: 1, customer: 'customer 1', amount: '1.5' },
        { id: 2, customer: 'customer 2', amount: '3.0' },
      ],
      { content: 'For security reasons, INSERT, UPDATE, and DELETE statements are not supported.' },
      { content: expect.stringMatching(/^SQL Execution Failed: SELEC broken\n/) },
      { content: expect.stringMatching(/^SQL Execution Failed: DROP TABLE orders\n/) },
    ]);
    expect(await orderCount()).toBe(before);
    expect(stack.log('planner')).not.toContain(PASSWORD);
  });

  it('an empty result ends the statements; a database no data source points at fails naming it', async () => {
    const empty = await exeSql({ ...target(), sql: 'SELECT id FROM orders WHERE false; SELECT 1 AS one' });
    expect(empty.run.status).toBe('succeeded');
    expect(empty.outputs?.['json']).toEqual([{ content: 'No record in the database!' }]);
    const missing = await exeSql({ ...target(), database: 'elsewhere', sql: 'SELECT 1' });
    expect(missing.run.status).toBe('failed');
    expect(missing.run.error.message).toContain(`no data source of this tenant points at postgres://`);
    expect(missing.run.error.message).toContain('/elsewhere');
    // The canvas says mysql: a Postgres data source at that address is not the one it means.
    const mysql = await exeSql({ ...target(), db_type: 'mysql', sql: 'SELECT 1' });
    expect(mysql.run.status).toBe('failed');
    expect(mysql.run.error.message).toContain(`no data source of this tenant points at mysql://`);
  });
});

describe('MySQL data sources (a real MariaDB): sql_query and ExeSQL', () => {
  const my = new URL(process.env['MARIADB_URL'] ?? 'mysql://switchyard:switchyard@127.0.0.1:3306');
  const MYDB = `sy_sql_e2e_${randomBytes(4).toString('hex')}`;
  const myDsn = () => {
    const u = new URL(my.toString());
    u.pathname = `/${MYDB}`;
    return u.toString();
  };
  const admin = () =>
    mysql.createConnection({
      host: my.hostname,
      port: Number(my.port || 3306),
      user: decodeURIComponent(my.username),
      password: decodeURIComponent(my.password),
    });
  const myCount = async () => {
    const c = admin();
    try {
      const [rows] = await c.promise().query(`SELECT count(*) AS n FROM ${MYDB}.orders`);
      return Number((rows as { n: number }[])[0].n);
    } finally {
      await c.promise().end();
    }
  };

  beforeAll(async () => {
    const c = admin();
    await c.promise().query(`CREATE DATABASE ${MYDB}`);
    await c
      .promise()
      .query(
        `CREATE TABLE ${MYDB}.orders (id int PRIMARY KEY, customer text NOT NULL, amount decimal(10,2), note text)`,
      );
    await c
      .promise()
      .query(
        `INSERT INTO ${MYDB}.orders SELECT seq, CONCAT('customer ', seq), seq * 1.5, REPEAT('n', 200) FROM ${MYDB}.seq_1_to_${ROWS}`,
      );
    await c.promise().end();
  });

  afterAll(async () => {
    const c = admin();
    await c
      .promise()
      .query(`DROP DATABASE IF EXISTS ${MYDB}`)
      .catch(() => undefined);
    await c.promise().end();
  });

  it('registers a mysql:// data source; a scheme that is not its kind and DSN parameters are a 400', async () => {
    const res = await stack.api('POST', '/v1/data-sources', {
      name: 'shopmy',
      kind: 'mysql',
      dsn: myDsn(),
      options: { statement_timeout_ms: 300, max_rows: 100 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'shopmy', kind: 'mysql', database: MYDB });
    const wrongScheme = await stack.api('POST', '/v1/data-sources', { name: 'x', kind: 'mysql', dsn });
    expect(wrongScheme.status).toBe(400);
    expect(JSON.stringify(wrongScheme.body)).toContain('mysql://');
    const param = await stack.api('POST', '/v1/data-sources', {
      name: 'y',
      kind: 'mysql',
      dsn: `${myDsn()}?multipleStatements=true`,
    });
    expect(param.status).toBe(400);
    expect(JSON.stringify(param.body)).toContain('multipleStatements');
    const unknown = await stack.api('POST', '/v1/data-sources', { name: 'z', kind: 'mssql', dsn: myDsn() });
    expect(unknown.status).toBe(400);
  });

  it('sql_query returns rows, takes ? parameters, and SHOW TABLES', async () => {
    const r = await run(
      '[sql] ds=shopmy SQL<<SELECT id, customer, amount FROM orders WHERE id <= 3 ORDER BY id>>',
    );
    expect(r.status).toBe('succeeded');
    expect(r.sql.error).toBeUndefined();
    expect(r.sql.result).toEqual({
      columns: ['id', 'customer', 'amount'],
      rows: [
        [1, 'customer 1', 1.5],
        [2, 'customer 2', 3],
        [3, 'customer 3', 4.5],
      ],
      row_count: 3,
      truncated: false,
    });
    const p = await run('[sql-param] ds=shopmy p1=42 SQL<<SELECT id, customer FROM orders WHERE id = ?>>');
    expect(p.sql.result).toMatchObject({ rows: [[42, 'customer 42']], row_count: 1 });
    const show = await run('[sql] ds=shopmy SQL<<SHOW TABLES>>');
    expect(show.sql.result).toMatchObject({ rows: [['orders']], row_count: 1 });
  });

  it('caps rows at the data source limit and ends a slow statement at its timeout', async () => {
    const all = await run('[sql] ds=shopmy SQL<<SELECT id FROM orders ORDER BY id>>');
    expect(all.sql.result).toMatchObject({ row_count: 100, truncated: true, truncated_by: 'max_rows' });
    const slow = await refused('SELECT SLEEP(3) FROM orders LIMIT 1', 'shopmy');
    expect(slow.code).toBe('sql_timeout');
    // The connection the capped query left is not lent out again: the next query works.
    const after = await run('[sql] ds=shopmy SQL<<SELECT count(*) AS n FROM orders>>');
    expect(after.sql.result).toMatchObject({ rows: [[ROWS]] });
  });

  it.each([
    ['INSERT', "INSERT INTO orders VALUES (999, 'x', 1, 'y')", /INSERT/],
    ['INTO OUTFILE', "SELECT * FROM orders INTO OUTFILE '/tmp/sy-sql-e2e'", /INTO/],
    ['an executable comment', 'SELECT 1 /*! ; DELETE FROM orders */', /executable comments/],
    ['LOAD_FILE', "SELECT LOAD_FILE('/etc/passwd')", /load_file/],
  ])('sql_query refuses %s and the table is unchanged', async (_what, sql, message) => {
    const error = await refused(sql, 'shopmy');
    expect(error.code).toBe('sql_forbidden');
    expect(error.message).toMatch(message);
    expect(await myCount()).toBe(ROWS);
  });

  it.each(['mysql', 'mariadb', 'oceanbase', undefined])(
    "ExeSQL with db_type %s (RAGFlow's default: mysql) queries the MySQL data source as RAGFlow does",
    async (dbType) => {
      const agent = await exeSqlAgent({
        ...(dbType ? { db_type: dbType } : {}),
        host: my.hostname,
        port: Number(my.port || 3306),
        database: MYDB,
        username: decodeURIComponent(my.username),
        password: 'not-the-real-one',
        sql: 'SELECT id, customer, amount FROM orders ORDER BY id LIMIT 2; DELETE FROM orders; SELEC broken',
      });
      expect(agent.status).toBe(201);
      const res = await stack.api('POST', '/v1/runs', { agent_id: agent.body.id, input: { prompt: 'go' } });
      const ended = await stack.ended(res.body.run_id as string);
      expect(ended.error).toBeNull();
      expect(ended.status).toBe('succeeded');
      // pandas' to_markdown(index=False, floatfmt=".6f"): decimals as floats with six places.
      expect(ended.output.answer).toContain(
        [
          '|   id | customer   |   amount |',
          '|-----:|:-----------|---------:|',
          '|    1 | customer 1 | 1.500000 |',
          '|    2 | customer 2 | 3.000000 |',
        ].join('\n'),
      );
      expect(ended.output.answer).toContain(
        'For security reasons, INSERT, UPDATE, and DELETE statements are not supported.',
      );
      expect(ended.output.answer).toContain('SQL Execution Failed: SELEC broken');
      expect(await myCount()).toBe(ROWS);
    },
  );

  it.each(['mssql', 'trino', 'db2'])('refuses ExeSQL with db_type %s on save, naming it', async (dbType) => {
    const res = await exeSqlAgent({
      db_type: dbType,
      host: 'h',
      port: 1,
      database: 'd',
      username: 'u',
      sql: 'SELECT 1',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`ExeSQL cannot query db_type "${dbType}"`);
  });

  it('ExeSQL as an Agent tool: the model writes the SQL, the entry names the database, the model reads the table', async () => {
    const original = readFileSync(join(__dirname, 'fixtures/sql.script.json'), 'utf8');
    const rules = [
      {
        name: 'write-sql',
        times: 1,
        when: { tools_include: 'execute_sql_0', last_role: 'user' },
        reply: {
          tool_calls: [
            { name: 'execute_sql_0', arguments: { sql: 'SELECT customer FROM orders WHERE id = 7' } },
          ],
        },
      },
      {
        name: 'answer',
        times: 1,
        when: { last_role: 'tool', any_includes: '| customer 7 |' },
        reply: { content: 'found {{echo:\\| (customer \\d+) \\|}}' },
      },
    ];
    await stack.putScript({ strict: true, models: ['scripted'], rules });
    try {
      const cpn = (name: string, p: Record<string, unknown>, down: string[], up: string[]) => ({
        obj: { component_name: name, params: p },
        downstream: down,
        upstream: up,
      });
      const agent = await stack.api('POST', '/v1/agents', {
        name: 'agent-exesql',
        kind: 'graph',
        dsl: {
          components: {
            begin: cpn('Begin', {}, ['Agent:Q'], []),
            'Agent:Q': cpn(
              'Agent',
              {
                llm_id: 'scripted',
                sys_prompt: 'Answer from the database.',
                prompts: [{ role: 'user', content: '{sys.query}' }],
                tools: [
                  {
                    component_name: 'ExeSQL',
                    name: 'ExeSQL',
                    params: {
                      db_type: 'mariadb',
                      host: my.hostname,
                      port: Number(my.port || 3306),
                      database: MYDB,
                      username: decodeURIComponent(my.username),
                      password: 'not-the-real-one',
                    },
                  },
                ],
              },
              ['Message:Show'],
              ['begin'],
            ),
            'Message:Show': cpn('Message', { content: ['{Agent:Q@content}'] }, [], ['Agent:Q']),
          },
          globals: {},
          variables: {},
        },
      });
      expect(agent.status).toBe(201);
      const res = await stack.api('POST', '/v1/runs', {
        agent_id: agent.body.id,
        input: { prompt: 'who is 7?' },
      });
      const ended = await stack.ended(res.body.run_id as string);
      expect(ended.error).toBeNull();
      expect(ended.output.answer).toMatch(/found customer 7$/);
    } finally {
      await stack.putScript(original);
    }
  });
});
