import { SqlGuardError, checkReadOnlySql, tokenize } from './sql-guard';

function refusal(sql: string): { code: string; message: string } {
  try {
    checkReadOnlySql(sql);
  } catch (err) {
    expect(err).toBeInstanceOf(SqlGuardError);
    const e = err as SqlGuardError;
    expect(e.retryable).toBe(false);
    return { code: e.code, message: e.message };
  }
  throw new Error(`expected ${JSON.stringify(sql)} to be refused`);
}

describe('checkReadOnlySql', () => {
  it.each([
    ['SELECT 1', 'query'],
    ['  select * from orders where id = $1;', 'query'],
    ['WITH t AS (SELECT 1 AS x) SELECT x FROM t;;', 'query'],
    ['VALUES (1, 2), (3, 4)', 'query'],
    ['TABLE orders', 'query'],
    ['(SELECT 1) UNION (SELECT 2)', 'query'],
    ['EXPLAIN SELECT * FROM orders', 'explain'],
    ['EXPLAIN (FORMAT JSON) SELECT 1', 'explain'],
    ["SELECT 'insert into x; drop table y' AS s", 'query'],
    ['SELECT "update", "delete" FROM t', 'query'],
    ['SELECT 1 -- then DROP TABLE x', 'query'],
    ['SELECT /* nested /* DELETE */ still comment */ 1', 'query'],
    ['SELECT $$ COPY x TO PROGRAM $$ AS s', 'query'],
    ["SELECT E'it\\'s; DROP TABLE x' AS s", 'query'],
    ['SELECT pg_sleep(0.01)', 'query'],
    ['SELECT count(*) FROM pg_catalog.pg_tables', 'query'],
  ])('accepts %s', (sql, kind) => {
    expect(checkReadOnlySql(sql).kind).toBe(kind);
  });

  it('returns the statement without trailing semicolons', () => {
    expect(checkReadOnlySql('SELECT 1 ;; ').text).toBe('SELECT 1');
    expect(checkReadOnlySql("SELECT ';' AS s;").text).toBe("SELECT ';' AS s");
  });

  it.each([
    ['INSERT INTO t VALUES (1)', /INSERT/],
    ['UPDATE t SET a = 1', /UPDATE/],
    ['DELETE FROM t', /DELETE/],
    ['DROP TABLE t', /DROP/],
    ['CREATE TABLE x (a int)', /CREATE/],
    ['ALTER TABLE t ADD COLUMN b int', /ALTER/],
    ['TRUNCATE t', /TRUNCATE/],
    ["COPY t TO PROGRAM 'rm -rf /'", /COPY/],
    ['SET statement_timeout = 0', /SET/],
    ['DO $$ BEGIN END $$', /DO/],
    ['CALL p()', /CALL/],
    ['GRANT ALL ON t TO public', /GRANT/],
    ['BEGIN', /BEGIN/],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', /DELETE/],
    ['SELECT * INTO copy_of_t FROM t', /INTO/],
    ['SELECT * FROM t FOR UPDATE', /UPDATE/],
    ['SELECT * FROM t FOR SHARE', /row locks/],
    ['EXPLAIN ANALYZE SELECT 1', /ANALYZE/],
    ['EXPLAIN (ANALYZE true) DELETE FROM t', /ANALYZE|DELETE/],
  ])('refuses %s as sql_forbidden', (sql, pattern) => {
    const r = refusal(sql);
    expect(r.code).toBe('sql_forbidden');
    expect(r.message).toMatch(pattern);
  });

  it.each([
    ["SELECT pg_read_file('/etc/passwd')", 'pg_read_file'],
    ["SELECT pg_catalog.pg_read_binary_file('/etc/passwd')", 'pg_read_binary_file'],
    ["SELECT * FROM pg_ls_dir('.')", 'pg_ls_dir'],
    ["SELECT lo_import('/etc/passwd')", 'lo_import'],
    ["SELECT lo_export(1, '/tmp/x')", 'lo_export'],
    ["SELECT * FROM dblink('host=x', 'select 1') AS t(a int)", 'dblink'],
    ["SELECT set_config('statement_timeout', '0', false)", 'set_config'],
    ['SELECT pg_terminate_backend(123)', 'pg_terminate_backend'],
    ['SELECT pg_cancel_backend (123)', 'pg_cancel_backend'],
    ['SELECT pg_advisory_lock(1)', 'pg_advisory_lock'],
    ["SELECT query_to_xml('delete from t', true, true, '')", 'query_to_xml'],
    ['SELECT "pg_read_file"(\'/etc/passwd\')', 'pg_read_file'],
    ["SELECT nextval('s')", 'nextval'],
  ])('refuses the function in %s', (sql, fn) => {
    const r = refusal(sql);
    expect(r.code).toBe('sql_forbidden');
    expect(r.message).toContain(`${fn}()`);
  });

  it('refuses Unicode-escaped identifiers that could hide a function name', () => {
    expect(refusal('SELECT U&"\\0070g_read_file"(\'/etc/passwd\')').code).toBe('sql_forbidden');
  });

  it('refuses several statements, even when each is a query', () => {
    expect(refusal('SELECT 1; SELECT 2').code).toBe('sql_multiple_statements');
    expect(refusal('SELECT 1; DROP TABLE t').code).toBe('sql_multiple_statements');
    // The semicolon inside a string does not count; the one after it does.
    expect(refusal("SELECT ';'; SELECT 2").code).toBe('sql_multiple_statements');
  });

  it('refuses empty and unterminated statements as sql_invalid', () => {
    expect(refusal('   ').code).toBe('sql_invalid');
    expect(refusal('-- only a comment').code).toBe('sql_invalid');
    expect(refusal(';').code).toBe('sql_invalid');
    expect(refusal("SELECT 'open").message).toMatch(/unterminated string/);
    expect(refusal('SELECT $x$ open').message).toMatch(/unterminated dollar-quoted/);
    expect(refusal('SELECT /* open').message).toMatch(/unterminated comment/);
  });
});

describe('tokenize', () => {
  it('keeps strings, quoted identifiers, parameters and dollar quotes whole', () => {
    const kinds = tokenize(`SELECT "a""b", 'x''y', $1, $tag$ ; $tag$, a$b FROM t`).map(
      (t) => `${t.kind}:${t.text}`,
    );
    expect(kinds).toEqual([
      'word:select',
      'quoted:a"b',
      'punct:,',
      "string:'x''y'",
      'punct:,',
      'param:$1',
      'punct:,',
      'string:$tag$ ; $tag$',
      'punct:,',
      'word:a$b',
      'word:from',
      'word:t',
    ]);
  });
});

describe('checkReadOnlySql, MySQL dialect', () => {
  const mysqlRefusal = (sql: string): { code: string; message: string } => {
    try {
      checkReadOnlySql(sql, 'mysql');
    } catch (err) {
      expect(err).toBeInstanceOf(SqlGuardError);
      return { code: (err as SqlGuardError).code, message: (err as SqlGuardError).message };
    }
    throw new Error(`expected ${JSON.stringify(sql)} to be refused`);
  };

  it.each([
    'SELECT `update`, `delete` FROM `order items`',
    'SHOW TABLES',
    'DESCRIBE orders',
    'desc orders',
    "SELECT 'it\\'s; DROP TABLE x' AS s",
    'SELECT "a string; DELETE FROM t" AS s',
    'SELECT 1 # then DROP TABLE x',
    'SELECT 1 -- then DROP TABLE x',
    'SELECT id FROM orders WHERE id = ?',
    'SELECT REPLACE(name, "a", "b") FROM orders',
  ])('accepts %s', (sql) => {
    expect(checkReadOnlySql(sql, 'mysql').kind).toBe('query');
  });

  it.each([
    ["SELECT * FROM orders INTO OUTFILE '/tmp/x'", 'INTO'],
    ["SELECT LOAD_FILE('/etc/passwd')", 'load_file()'],
    ["SELECT GET_LOCK('x', 10)", 'get_lock()'],
    ['SELECT * FROM orders LOCK IN SHARE MODE', 'LOCK'],
    ['SELECT * FROM orders FOR UPDATE', 'FOR UPDATE'],
    ['SELECT 1 /*! ; DROP TABLE orders */', 'executable comments'],
    ['SELECT 1 /*M!100000 INTO OUTFILE "/tmp/x" */', 'executable comments'],
    // `--` without a blank is no comment in MySQL: what follows is read, and refused.
    ['SELECT 1--1 INTO @x', 'INTO'],
    ['UPDATE orders SET id = 1', 'SHOW or DESCRIBE'],
    ['SELECT 1; SELECT 2', 'more than one statement'],
  ])('refuses %s', (sql, why) => {
    expect(mysqlRefusal(sql).message).toContain(why);
  });

  it('names the quoting of the dialect', () => {
    expect(mysqlRefusal('SELECT insert FROM t').message).toContain('`insert`');
  });
});
