import { Inject, Injectable } from '@nestjs/common';
import {
  EXESQL_DB_TYPES,
  GraphErrorCode,
  GraphException,
  exeSqlDialect,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import { markdownTable } from '@switchyard/provider-tools';
import { SqlDataSources, type SqlQueryResult } from '@switchyard/sql-sources';
import type { ComponentRunner } from '../component-runner';
import type { GraphTool, GraphToolFactory } from '../graph-tool';
import { providerTool } from './provider-tool';
import { toolInput } from './tool-input';

const WRITES_REFUSED = 'For security reasons, INSERT, UPDATE, and DELETE statements are not supported.';
const NO_RECORD = 'No record in the database!';

/**
 * ExeSQL (RAGFlow's `agent/tools/exesql.py`) over Switchyard's data sources: the canvas names a
 * database by host, port, database and user, and the run's tenant's data source that points there
 * is used — its sealed credentials (the DSL's password is never used), the address guard, the
 * platform-database refusal, and `sql_query`'s read-only guard, transaction and limits. As in
 * RAGFlow the SQL is split on `;`; an INSERT/UPDATE/DELETE is answered with RAGFlow's refusal,
 * a failing statement with `SQL Execution Failed: …`, and the first empty result ends the list.
 * Outputs: `json` (each statement's records, or `{content}`) and `formalized_content` (the
 * tables as pandas' `to_markdown(index=False, floatfmt=".6f")`, joined by blank lines).
 * `db_type` mysql (RAGFlow's default) and oceanbase (its MySQL mode) query a MySQL/MariaDB data
 * source, postgres a PostgreSQL one; validate-canvas refuses the engines that cannot be queried
 * here (mssql, trino, db2) on save.
 */
@Injectable()
export class ExeSqlComponent implements GraphToolFactory, ComponentRunner {
  readonly names: readonly string[] = ['ExeSQL'];
  readonly componentName = 'ExeSQL';

  constructor(@Inject(SqlDataSources) private readonly sources: SqlDataSources) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const raw = toolInput(ctx.scope, ctx.component.params, 'sql', '{sys.query}');
    return this.execute(
      ctx.tenantId,
      ctx.component.params,
      typeof raw === 'string' ? raw : JSON.stringify(raw ?? ''),
    );
  }

  /**
   * RAGFlow's ExeSQL as an Agent tool (`execute_sql`): the model writes the SQL, the entry's
   * params name the database; the model reads `formalized_content`, a failure's message otherwise.
   */
  create(entry: { name?: string; params: Record<string, unknown> }, index: number): GraphTool {
    return providerTool({
      functionName: 'execute_sql',
      index,
      entryParams: entry.params,
      description: 'This is a tool that can execute SQL.',
      parameters: {
        type: 'object',
        properties: { sql: { type: 'string', description: 'The SQL needs to be executed.' } },
        required: ['sql'],
      },
      errorPrefix: 'ExeSQL',
      call: async (args, ctx) => {
        const out = await this.execute(ctx.tenantId, entry.params, String(args['sql'] ?? ''));
        return String(out.outputs['formalized_content']);
      },
    });
  }

  private async execute(tenantId: string, p: Record<string, unknown>, sql: string): Promise<ComponentEffect> {
    const dbType = String(p['db_type'] ?? 'mysql');
    const kind = exeSqlDialect(dbType);
    if (!kind) {
      // validate-canvas refuses it on save; a canvas pinned before that fails naming it.
      throw new GraphException(
        GraphErrorCode.ComponentFailed,
        `ExeSQL: db_type "${dbType}" cannot be queried here (${EXESQL_DB_TYPES.join(', ')} can)`,
      );
    }
    if (!sql.trim()) {
      throw new GraphException(GraphErrorCode.ComponentFailed, 'SQL for `ExeSQL` MUST not be empty.');
    }
    const source = await this.sources.resolveTarget(tenantId, {
      kind,
      host: String(p['host'] ?? ''),
      port: Number(p['port'] ?? 3306),
      database: String(p['database'] ?? ''),
      username: String(p['username'] ?? ''),
    });
    const maxRecords = Number.isInteger(p['max_records']) ? Number(p['max_records']) : 1024;
    const limits = {
      statementTimeoutMs: source.options.statement_timeout_ms,
      maxRows: Math.min(source.options.max_rows, maxRecords),
      maxBytes: source.options.max_bytes,
    };
    const json: unknown[] = [];
    const tables: string[] = [];
    const client = await this.sources.connect(source);
    let broken = false;
    try {
      for (const part of sql.split(';')) {
        const single = part
          .replace(/```/g, '')
          .trim()
          .replace(/\[ID:[0-9]+\]/g, '');
        if (!single) {
          continue;
        }
        if (/^(insert|update|delete)\b/i.test(single)) {
          json.push({ content: WRITES_REFUSED });
          tables.push(WRITES_REFUSED);
          continue;
        }
        let res: SqlQueryResult;
        try {
          res = await client.query({ sql: single, params: [] }, limits);
        } catch (err) {
          broken ||= (err as { code?: string }).code === 'sql_connection_error';
          const msg = `SQL Execution Failed: ${single}\n${(err as Error).message}`;
          json.push({ content: msg });
          tables.push(msg);
          continue;
        }
        if (res.row_count === 0) {
          json.push({ content: NO_RECORD });
          break;
        }
        json.push(res.rows.map((row) => Object.fromEntries(res.columns.map((c, i) => [c, row[i]]))));
        tables.push(
          markdownTable(
            res.columns,
            res.rows.map((row) => row.map(cellText)),
            { index: false, decimals: 6, nullIs: 'none' },
          ),
        );
      }
    } finally {
      client.release(broken);
    }
    return {
      outputs: { json, formalized_content: tables.join('\n\n') },
      summary: `ExeSQL: ${json.length} statement(s) on data source "${source.name}"`,
    };
  }
}

/** A cell as pandas prints it: numbers as numbers, booleans as Python's, objects as JSON, null as None. */
function cellText(v: unknown): string | number | null {
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'string') {
    return (v ?? null) as string | number | null;
  }
  if (typeof v === 'boolean') {
    return v ? 'True' : 'False';
  }
  return JSON.stringify(v);
}
