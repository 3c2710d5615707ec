import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { streamedInto, validateCanvas } from '@switchyard/graph';
import { ApiException } from '../http/api.exception';
import type { RagflowComponent, RagflowRunContext, RagflowRunEnd, RagflowRunSource } from './ragflow-events';
import { RunStreamsRepository } from './run-streams.repository';

/** What the RAGFlow-format stream reads of a run: its thread, inputs and canvas; its end. */
@Injectable()
export class RagflowRuns implements RagflowRunSource {
  private readonly runs: RunStreamsRepository;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.runs = new RunStreamsRepository(ds);
  }

  async context(runId: string): Promise<RagflowRunContext> {
    const row = await this.runs.ragflowContext(runId);
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
    const row = await this.runs.ragflowEnd(runId);
    if (!row) {
      throw ApiException.notFound('run');
    }
    // RAGFlow reports the outputs of the last component on its path.
    const outputs = await this.runs.lastGraphOutputs(runId);
    return {
      status: row.status,
      answer: row.answer,
      lastOutputs: outputs && typeof outputs === 'object' ? (outputs as Record<string, unknown>) : null,
      startedAt: row.started_at ? new Date(row.started_at).getTime() : null,
      finishedAt: row.finished_at ? new Date(row.finished_at).getTime() : null,
    };
  }
}
