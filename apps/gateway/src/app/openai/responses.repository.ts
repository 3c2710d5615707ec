import { Inject, Injectable } from '@nestjs/common';
import { type Selectable, sql } from 'kysely';
import { DataSource } from 'typeorm';
import type { Usage } from '@switchyard/contracts';
import { type DB, type Db, kyselyOf } from '@switchyard/persistence';
import type { ResponseInputItem, ResponseTool, TextFormat } from './responses.dto';

/** What a response was asked, kept to tell it back (`GET /v1/responses/:id`). */
export interface StoredRequest {
  instructions: string | null;
  tools: ResponseTool[];
  tool_choice: 'auto' | 'none';
  text_format: TextFormat;
  metadata: Record<string, string>;
  user: string | null;
  background: boolean;
}

/** An input item as stored: with the id it is listed under. */
export type StoredInputItem = ResponseInputItem & { id: string };

export interface ResponseRow {
  id: string;
  tenant_id: string;
  run_id: string;
  thread_id: string;
  previous_response_id: string | null;
  model: string;
  request: StoredRequest;
  input: StoredInputItem[];
  cursor: string;
  answered: string[];
  usage_before: Usage;
  /** The response as it ended; null while its run works (it is then read from the run). */
  response: Record<string, unknown> | null;
  created_at: Date;
}

/** The JSON columns narrowed to what the gateway wrote in them. */
function responseRow(r: Selectable<DB['openai_responses']>): ResponseRow {
  return {
    ...r,
    request: r.request as unknown as StoredRequest,
    input: r.input as unknown as StoredInputItem[],
    usage_before: r.usage_before as unknown as Usage,
    response: r.response as Record<string, unknown> | null,
  };
}

/** `openai_responses`: the Responses API's requests and what they answered. */
@Injectable()
export class ResponsesRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  async insert(row: Omit<ResponseRow, 'response' | 'created_at'>): Promise<ResponseRow> {
    const created = await this.db
      .insertInto('openai_responses')
      .values({
        id: row.id,
        tenant_id: row.tenant_id,
        run_id: row.run_id,
        thread_id: row.thread_id,
        previous_response_id: row.previous_response_id,
        model: row.model,
        request: JSON.stringify(row.request),
        input: JSON.stringify(row.input),
        cursor: row.cursor,
        answered: row.answered,
        usage_before: JSON.stringify(row.usage_before),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return responseRow(created);
  }

  async find(tenantId: string, id: string): Promise<ResponseRow | null> {
    const row = await this.db
      .selectFrom('openai_responses')
      .selectAll()
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row ? responseRow(row) : null;
  }

  /** Keeps the response as it ended (the first one kept wins: a response ends once). */
  async finish(id: string, response: Record<string, unknown>): Promise<Record<string, unknown>> {
    const row = await this.db
      .updateTable('openai_responses')
      .set({
        response: sql<
          DB['openai_responses']['request']
        >`COALESCE(response, ${JSON.stringify(response)}::jsonb)`,
      })
      .where('id', '=', id)
      .returning('response')
      .executeTakeFirst();
    return (row?.response as Record<string, unknown> | undefined) ?? response;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const { numDeletedRows } = await this.db
      .deleteFrom('openai_responses')
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return numDeletedRows > 0n;
  }
}
