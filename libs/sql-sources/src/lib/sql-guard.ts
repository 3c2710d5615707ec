import type { RunErrorCodes } from '@switchyard/contracts';
import { SqlSourceError } from './sql-source.error';

// A first, explainable line of defence for `sql_query`: it refuses what is plainly not a single
// read-only query, with a message the agent can act on. It is NOT the security boundary — the
// statement runs in a READ ONLY transaction (which Postgres enforces whatever the text says), and
// operators should point data sources at a role that can only read. The guard works on tokens,
// not characters, so words inside strings, quoted identifiers and comments never trip it.

export type SqlGuardCode = RunErrorCodes<'sql_forbidden' | 'sql_multiple_statements' | 'sql_invalid'>;

/** Whose SQL: Postgres, or MySQL/MariaDB (backticks, `#` comments, backslash escapes, `/*!`). */
export type SqlDialect = 'postgres' | 'mysql';

/** A statement the guard refused; an observation for the agent, never retried. */
export class SqlGuardError extends SqlSourceError {
  constructor(message: string, code: SqlGuardCode) {
    super(message, code);
    this.name = 'SqlGuardError';
  }
}

type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'param' | 'punct';
interface Token {
  kind: TokenKind;
  /** Words lower-cased; quoted identifiers unquoted; strings as written. */
  text: string;
  offset: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const DOLLAR_TAG = /\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

/** Splits SQL into tokens, dropping whitespace and comments. Throws on unterminated literals. */
export function tokenize(sql: string, dialect: SqlDialect = 'postgres'): Token[] {
  return dialect === 'mysql' ? tokenizeMysql(sql) : tokenizePostgres(sql);
}

function unterminated(what: string, at: number): never {
  throw new SqlGuardError(`invalid SQL: unterminated ${what} starting at character ${at + 1}`, 'sql_invalid');
}

/** A word or a number at `i`, and the index after it; undefined when there is neither. */
function wordOrNumber(sql: string, i: number): { token: Token; end: number } | undefined {
  const c = sql[i];
  let end = i;
  if (WORD_START.test(c)) {
    while (end < sql.length && WORD_PART.test(sql[end])) {
      end++;
    }
    return { token: { kind: 'word', text: sql.slice(i, end).toLowerCase(), offset: i }, end };
  }
  if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
    while (end < sql.length && /[0-9._eE]/.test(sql[end])) {
      end++;
    }
    return { token: { kind: 'number', text: sql.slice(i, end), offset: i }, end };
  }
  return undefined;
}

/**
 * MySQL/MariaDB lexing: `#` and `-- ` (a blank after the dashes) line comments; block comments do
 * not nest, and an executable one (`/*!…*\/`, MariaDB's `/*M!…*\/`) is refused — the server runs
 * what it holds; '…' and "…" strings take backslash escapes; `…` quotes identifiers.
 */
function tokenizeMysql(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#' || (c === '-' && sql[i + 1] === '-' && /[\s]|^$/.test(sql[i + 2] ?? ''))) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      if (sql[i + 2] === '!' || (sql[i + 2] === 'M' && sql[i + 3] === '!')) {
        throw new SqlGuardError(
          'refused: executable comments (/*! … */) are not allowed: the server runs what they hold',
          'sql_forbidden',
        );
      }
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) {
        unterminated('comment', i);
      }
      i = end + 2;
    } else if (c === "'" || c === '"') {
      const start = i;
      i = skipQuoted(sql, i, c, true) ?? unterminated('string', start);
      tokens.push({ kind: 'string', text: sql.slice(start, i), offset: start });
    } else if (c === '`') {
      const start = i;
      i = skipQuoted(sql, i, '`', false) ?? unterminated('quoted identifier', start);
      tokens.push({ kind: 'quoted', text: sql.slice(start + 1, i - 1).replace(/``/g, '`'), offset: start });
    } else {
      const t = wordOrNumber(sql, i);
      if (t) {
        tokens.push(t.token);
        i = t.end;
      } else {
        tokens.push({ kind: 'punct', text: c, offset: i++ });
      }
    }
  }
  return tokens;
}

function tokenizePostgres(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (what: string, at: number): never => {
    throw new SqlGuardError(
      `invalid SQL: unterminated ${what} starting at character ${at + 1}`,
      'sql_invalid',
    );
  };
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      // Postgres block comments nest.
      const start = i;
      let depth = 0;
      do {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else if (i >= sql.length) {
          fail('comment', start);
        } else {
          i++;
        }
      } while (depth > 0);
    } else if (c === "'") {
      const start = i;
      i = skipQuoted(sql, i, "'", false) ?? fail('string', start);
      tokens.push({ kind: 'string', text: sql.slice(start, i), offset: start });
    } else if (c === '"') {
      const start = i;
      i = skipQuoted(sql, i, '"', false) ?? fail('quoted identifier', start);
      tokens.push({ kind: 'quoted', text: sql.slice(start + 1, i - 1).replace(/""/g, '"'), offset: start });
    } else if (c === '$') {
      const start = i;
      const param = /\$\d+/y;
      param.lastIndex = i;
      const p = param.exec(sql);
      if (p) {
        i += p[0].length;
        tokens.push({ kind: 'param', text: p[0], offset: start });
        continue;
      }
      DOLLAR_TAG.lastIndex = i;
      const tag = DOLLAR_TAG.exec(sql);
      if (!tag) {
        tokens.push({ kind: 'punct', text: c, offset: i++ });
        continue;
      }
      const end = sql.indexOf(tag[0], i + tag[0].length);
      if (end < 0) {
        fail('dollar-quoted string', start);
      }
      i = end + tag[0].length;
      tokens.push({ kind: 'string', text: sql.slice(start, i), offset: start });
    } else {
      const t = wordOrNumber(sql, i);
      if (!t) {
        tokens.push({ kind: 'punct', text: c, offset: i++ });
      } else if (t.token.text === 'e' && sql[t.end] === "'") {
        // E'…' strings take backslash escapes, so a quote after a backslash does not end them.
        i = skipQuoted(sql, t.end, "'", true) ?? fail('string', i);
        tokens.push({ kind: 'string', text: sql.slice(t.token.offset, i), offset: t.token.offset });
      } else {
        tokens.push(t.token);
        i = t.end;
      }
    }
  }
  return tokens;
}

/** The index after the closing quote (a doubled quote is an escaped one), or undefined. */
function skipQuoted(sql: string, open: number, quote: string, backslashes: boolean): number | undefined {
  let i = open + 1;
  while (i < sql.length) {
    if (backslashes && sql[i] === '\\') {
      i += 2;
    } else if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
      } else {
        return i + 1;
      }
    } else {
      i++;
    }
  }
  return undefined;
}

const FIRST_WORDS = new Set(['select', 'with', 'values', 'table', 'explain']);
// MySQL's read-only statements that agents write first: SHOW TABLES, DESCRIBE t.
const MYSQL_FIRST_WORDS = new Set([...FIRST_WORDS, 'show', 'describe', 'desc']);
// What MySQL adds to the words that write or hold: SELECT … INTO OUTFILE writes a server file,
// LOCK IN SHARE MODE locks rows, HANDLER reads past the transaction.

// Words that only appear in statements that write, change the schema, or hold resources.
// An unquoted column of one of these names must be written quoted ("update").
const FORBIDDEN_WORDS = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'truncate',
  'drop',
  'alter',
  'create',
  'grant',
  'revoke',
  'copy',
  'into',
  'vacuum',
  'reindex',
  'cluster',
  'refresh',
  'listen',
  'unlisten',
  'notify',
  'prepare',
  'deallocate',
  'discard',
  'checkpoint',
]);
// What MySQL adds to the words that write or hold: SELECT … INTO OUTFILE writes a server file,
// LOCK IN SHARE MODE locks rows, HANDLER reads past the transaction.
const MYSQL_FORBIDDEN_WORDS = new Set([...FORBIDDEN_WORDS, 'outfile', 'dumpfile', 'lock', 'handler']);

// Functions that read the server's files, reach other servers, change settings, signal other
// sessions, take locks that outlive the transaction, or run a query given as text (which would
// slip past this guard). pg_sleep stays allowed: statement_timeout bounds it.
const FORBIDDEN_FUNCTIONS = new Set([
  'set_config',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_notify',
  'pg_stat_file',
  'pg_import_system_collations',
  'pg_log_backend_memory_contexts',
  'pg_start_backup',
  'pg_stop_backup',
  'pg_backup_start',
  'pg_backup_stop',
  'pg_create_restore_point',
  'nextval',
  'setval',
  'ts_stat',
  'ts_rewrite',
  'xpath_table',
]);
const FORBIDDEN_FUNCTION_PATTERNS = [
  /^pg_read_/, // pg_read_file, pg_read_binary_file
  /^pg_ls_/, // pg_ls_dir, pg_ls_logdir, pg_ls_waldir, …
  /^pg_file_/, // adminpack: pg_file_write, pg_file_rename, …
  /^lo_/, // lo_import, lo_export, lo_from_bytea, lo_put, …
  /^dblink/, // dblink, dblink_exec, dblink_connect, …
  /^pg_(try_)?advisory_/, // session locks survive the rollback
  /^pg_(create|drop)_/, // replication slots
  /^pg_(logical|replication)_/,
  /^(query|cursor|table|schema|database)_to_xml/, // run a query given as text
];

// MySQL/MariaDB: reading the server's files, named locks that outlive the transaction (GET_LOCK),
// waiting on replication, the UDFs that run shell commands.
const MYSQL_FORBIDDEN_FUNCTIONS = new Set([
  'load_file',
  'get_lock',
  'release_lock',
  'release_all_locks',
  'master_pos_wait',
  'source_pos_wait',
  'master_gtid_wait',
  'sys_exec',
  'sys_eval',
  'nextval',
  'setval',
  'lastval',
]);

function forbiddenFunction(name: string, dialect: SqlDialect): boolean {
  if (dialect === 'mysql') {
    return MYSQL_FORBIDDEN_FUNCTIONS.has(name);
  }
  return FORBIDDEN_FUNCTIONS.has(name) || FORBIDDEN_FUNCTION_PATTERNS.some((p) => p.test(name));
}

export interface CheckedSql {
  /** 'explain' output cannot be wrapped in a row-limiting subquery. */
  kind: 'query' | 'explain';
  /** The statement without its trailing semicolon(s). */
  text: string;
}

/**
 * Accepts exactly one SELECT / WITH / VALUES / TABLE / EXPLAIN (without ANALYZE) statement — in
 * MySQL also SHOW and DESCRIBE — that names no writing keyword and calls no dangerous function;
 * throws SqlGuardError saying why not.
 */
export function checkReadOnlySql(sql: string, dialect: SqlDialect = 'postgres'): CheckedSql {
  const tokens = tokenize(sql, dialect);
  const firstWords = dialect === 'mysql' ? MYSQL_FIRST_WORDS : FIRST_WORDS;
  const forbiddenWords = dialect === 'mysql' ? MYSQL_FORBIDDEN_WORDS : FORBIDDEN_WORDS;
  if (tokens.length === 0) {
    throw new SqlGuardError('invalid SQL: the statement is empty', 'sql_invalid');
  }
  const semicolon = tokens.findIndex((t) => t.kind === 'punct' && t.text === ';');
  if (semicolon >= 0 && tokens.slice(semicolon).some((t) => !(t.kind === 'punct' && t.text === ';'))) {
    throw new SqlGuardError(
      'refused: more than one statement (only a single query is allowed; remove the ";" between statements)',
      'sql_multiple_statements',
    );
  }
  const body = semicolon >= 0 ? tokens.slice(0, semicolon) : tokens;
  if (body.length === 0) {
    throw new SqlGuardError('invalid SQL: the statement is empty', 'sql_invalid');
  }
  const first = body[0];
  if (!(first.kind === 'word' && firstWords.has(first.text)) && first.text !== '(') {
    const allowed =
      dialect === 'mysql'
        ? 'SELECT, WITH, VALUES, TABLE, EXPLAIN, SHOW or DESCRIBE'
        : 'SELECT, WITH, VALUES, TABLE or EXPLAIN';
    throw new SqlGuardError(
      `refused: only a single read-only query (${allowed}) is allowed, not "${sql
        .slice(first.offset, first.offset + 40)
        .split(/\s/)[0]
        .toUpperCase()}"`,
      'sql_forbidden',
    );
  }
  const explain = first.kind === 'word' && first.text === 'explain';
  for (let i = 0; i < body.length; i++) {
    const t = body[i];
    const next = body[i + 1];
    if (t.kind === 'word') {
      if (forbiddenWords.has(t.text)) {
        const quoted = dialect === 'mysql' ? `\`${t.text}\`` : `"${t.text}"`;
        throw new SqlGuardError(
          `refused: ${t.text.toUpperCase()} is not allowed in a read-only query (quote an identifier of that name: ${quoted})`,
          'sql_forbidden',
        );
      }
      if (explain && (t.text === 'analyze' || t.text === 'analyse')) {
        throw new SqlGuardError(
          'refused: EXPLAIN ANALYZE executes the statement; use EXPLAIN without ANALYZE',
          'sql_forbidden',
        );
      }
      if (t.text === 'for' && next?.kind === 'word' && ['update', 'share', 'key', 'no'].includes(next.text)) {
        throw new SqlGuardError(
          'refused: row locks (FOR UPDATE / FOR SHARE) are not allowed',
          'sql_forbidden',
        );
      }
    }
    // U&"…" spells an identifier with escapes, which would hide a function name from the check below.
    if (t.kind === 'word' && t.text === 'u' && next?.text === '&' && body[i + 2]?.kind === 'quoted') {
      throw new SqlGuardError(
        'refused: Unicode-escaped identifiers (U&"…") are not allowed',
        'sql_forbidden',
      );
    }
    if ((t.kind === 'word' || t.kind === 'quoted') && next?.kind === 'punct' && next.text === '(') {
      const name = t.kind === 'word' ? t.text : t.text.toLowerCase();
      if (forbiddenFunction(name, dialect)) {
        throw new SqlGuardError(
          `refused: the function ${name}() is not allowed in a read-only query`,
          'sql_forbidden',
        );
      }
    }
  }
  const end = semicolon >= 0 ? tokens[semicolon].offset : sql.length;
  return { kind: explain ? 'explain' : 'query', text: sql.slice(0, end).trimEnd() };
}
