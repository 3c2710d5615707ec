import { Controller, Inject, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { z } from 'zod';
import type { JetStreamContext } from '@switchyard/jetstream';
import {
  KnowledgeStore,
  RetrievalArgsSchema,
  type SearchResult,
  resolveDataSources,
} from '@switchyard/knowledge';
import { collectUsage } from '@switchyard/models';
import {
  type NodeInput,
  type NodeOutput,
  NodeHandler,
  NodeRuntime,
  type ToolDeclaration,
  ToolRunner,
  taskTenant,
  toolArgs,
} from '@switchyard/worker';

// Tools always hand their result to reflection.
const NEXT = ['reflection'];

const { $schema: _dialect, ...retrievalInputJsonSchema } = z.toJSONSchema(RetrievalArgsSchema, {
  io: 'input',
});

const RETRIEVAL_TOOL: ToolDeclaration = {
  name: 'retrieval',
  description:
    'Searches knowledge collections for passages relevant to a query. data_source lists collections by ' +
    'id (optionally index_item.index_name to pick an index set); mode is vector, fulltext or hybrid.',
  inputJsonSchema: retrievalInputJsonSchema,
  idempotent: true,
};

/**
 * `retrieval`: searches knowledge collections. Each data source names a collection (block) by id;
 * its index set is resolved at run time from the block (seed 000), within the run's tenant.
 */
@Controller()
export class RetrievalController implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetrievalController.name);

  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ToolRunner) private readonly tools: ToolRunner,
    @Inject(KnowledgeStore) private readonly store: KnowledgeStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const info = await this.store.vectorBackend();
      this.logger.log({
        msg: `vector backend: ${info.description}`,
        backend: info.backend,
        pgvector: info.pgvectorInstalled,
      });
    } catch (err) {
      this.logger.warn({ msg: `vector backend not checked: ${(err as Error).message}` });
    }
  }

  // Under the shared tool plumbing: SWITCHYARD_TOOL_TIMEOUT_MS and the output cap apply.
  @NodeHandler({
    name: RETRIEVAL_TOOL.name,
    description: RETRIEVAL_TOOL.description,
    tool: true,
    inputSchema: RETRIEVAL_TOOL.inputJsonSchema,
    idempotent: RETRIEVAL_TOOL.idempotent,
  })
  retrieval(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input: NodeInput) => {
      // The task's tenant is the only one searched; a task naming none fails the run (not the tool).
      const tenantId = taskTenant(input.task);
      return this.tools.run(RETRIEVAL_TOOL, input, async () => {
        const args = toolArgs(input.state, input.task, RetrievalArgsSchema);
        const blocks = await this.store.getCollections(
          tenantId,
          args.data_source.map((d) => d.id),
        );
        const resolved = resolveDataSources(args.data_source, blocks);
        // A registry embedding model meters its calls; their tokens are this action's usage.
        const { value: results, usage } = await collectUsage(() =>
          this.store.searchResolved(tenantId, resolved, args.query, {
            mode: args.mode,
            topK: args.top_k,
            threshold: args.threshold,
          }),
        );
        return {
          preparation: `Resolved ${resolved
            .map((r) => `${r.id} → ${r.index_name} (${r.via})`)
            .join(', ')}; ${args.mode} search, top_k ${args.top_k}, threshold ${args.threshold}.`,
          summary: results.length
            ? `Found ${results.length} passage(s) for "${args.query}" (best score ${results[0].score}).`
            : `No passage found for "${args.query}".`,
          result: {
            results,
            resolved: resolved.map((r) => ({ id: r.id, index_name: r.index_name, via: r.via })),
          },
          context: contextOf(results),
          usage,
          next: NEXT,
        };
      });
    });
  }
}

/** Passages as reference context; those scoring at least half the best one count as important. */
function contextOf(results: readonly SearchResult[]): NodeOutput['context'] {
  const best = results[0]?.score ?? 0;
  return results.map((r) => ({
    type: 'text' as const,
    content: r.text,
    important: best > 0 && r.score >= best / 2,
    usage_type: 'reference' as const,
  }));
}
