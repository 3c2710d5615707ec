import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Usage } from '@switchyard/contracts';
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

/** `openai_responses`: the Responses API's requests and what they answered. */
@Injectable()
export class ResponsesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(row: Omit<ResponseRow, 'response' | 'created_at'>): Promise<ResponseRow> {
    const [created] = (await this.ds.query(
      `INSERT INTO openai_responses
         (id, tenant_id, run_id, thread_id, previous_response_id, model, request, input, cursor, answered, usage_before)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       RETURNING *`,
      [
        row.id,
        row.tenant_id,
        row.run_id,
        row.thread_id,
        row.previous_response_id,
        row.model,
        JSON.stringify(row.request),
        JSON.stringify(row.input),
        row.cursor,
        row.answered,
        JSON.stringify(row.usage_before),
      ],
    )) as ResponseRow[];
    return created;
  }

  async find(tenantId: string, id: string): Promise<ResponseRow | null> {
    const [row] = (await this.ds.query('SELECT * FROM openai_responses WHERE id = $1 AND tenant_id = $2', [
      id,
      tenantId,
    ])) as ResponseRow[];
    return row ?? null;
  }

  /** Keeps the response as it ended (the first one kept wins: a response ends once). */
  async finish(id: string, response: Record<string, unknown>): Promise<Record<string, unknown>> {
    // TypeORM answers an UPDATE … RETURNING with [rows, count].
    const [[row]] = (await this.ds.query(
      `UPDATE openai_responses SET response = COALESCE(response, $2::jsonb) WHERE id = $1 RETURNING response`,
      [id, JSON.stringify(response)],
    )) as [{ response: Record<string, unknown> }[], number];
    return row?.response ?? response;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const [, count] = (await this.ds.query('DELETE FROM openai_responses WHERE id = $1 AND tenant_id = $2', [
      id,
      tenantId,
    ])) as [unknown, number];
    return count > 0;
  }
}
