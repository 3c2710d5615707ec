import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RunStatus } from '@switchyard/contracts';
import { streamedInto, validateCanvas } from '@switchyard/graph';
import { ApiException } from '../http/api.exception';
import type { RagflowComponent, RagflowRunContext, RagflowRunEnd, RagflowRunSource } from './ragflow-events';

/** What the RAGFlow-format stream reads of a run: its thread, inputs and canvas; its end. */
@Injectable()
export class RagflowRuns implements RagflowRunSource {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async context(runId: string): Promise<RagflowRunContext> {
    const [row] = (await this.ds.query(
      `SELECT thread_id, input->'inputs' AS inputs, agent_config->>'kind' AS kind, agent_config->'dsl' AS dsl
       FROM runs WHERE id = $1`,
      [runId],
    )) as { thread_id: string; inputs: unknown; kind: string | null; dsl: unknown }[];
    if (!row) {
      throw ApiException.notFound('run');
    }
    const components = new Map<string, RagflowComponent>();
    if (row.kind === 'graph' && row.dsl) {
      // Validated when saved (and stored as JSON text); a DSL that no longer reads only costs names.
      try {
        const canvas = validateCanvas(
          typeof row.dsl === 'string' ? (JSON.parse(row.dsl) as unknown) : row.dsl,
        );
        for (const [id, c] of Object.entries(canvas.components)) {
          const streamsInto = streamedInto(canvas, id);
          components.set(id, {
            type: c.name,
            name: canvas.names[id] ?? id,
            ...(c.parentId ? { parentId: c.parentId } : {}),
            ...(streamsInto.length ? { streamsInto } : {}),
          });
        }
      } catch {
        components.clear();
      }
    }
    const inputs =
      row.inputs && typeof row.inputs === 'object' && !Array.isArray(row.inputs)
        ? (row.inputs as Record<string, unknown>)
        : {};
    return { runId, threadId: row.thread_id, inputs, components, plainAgent: row.kind !== 'graph' };
  }

  async end(runId: string): Promise<RagflowRunEnd> {
    const [row] = (await this.ds.query(
      `SELECT status, output->>'answer' AS answer, started_at, finished_at FROM runs WHERE id = $1`,
      [runId],
    )) as { status: RunStatus; answer: string | null; started_at: Date | null; finished_at: Date | null }[];
    if (!row) {
      throw ApiException.notFound('run');
    }
    // RAGFlow reports the outputs of the last component on its path.
    const [last] = (await this.ds.query(
      `SELECT delta->'action'->'result'->'outputs' AS outputs FROM state_deltas
       WHERE run_id = $1 AND delta->'action'->>'node' LIKE 'graph.%'
         AND coalesce(delta->'action'->'result'->>'skipped', 'false') <> 'true'
       ORDER BY version DESC LIMIT 1`,
      [runId],
    )) as { outputs: unknown }[];
    return {
      status: row.status,
      answer: row.answer,
      lastOutputs:
        last?.outputs && typeof last.outputs === 'object' ? (last.outputs as Record<string, unknown>) : null,
      startedAt: row.started_at ? new Date(row.started_at).getTime() : null,
      finishedAt: row.finished_at ? new Date(row.finished_at).getTime() : null,
    };
  }
}
