import { Inject, Injectable } from '@nestjs/common';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import type { Usage } from '@switchyard/contracts';
import {
  type BlockView,
  type EdgeEffect,
  type PuppyMessage,
  type PuppyWorkflow,
  chunkDocs,
  chunkOutputs,
  edgeModelName,
  isLlmChunk,
  llmChunkMessages,
  generatorCalls,
  llmCalls,
  perplexityModel,
  pureEdgeEffect,
  searchPlan,
  writeToOutputs,
} from '@switchyard/graph';
import { ChatModels, invokeStructured } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { PUPPY_CHAT_ROLE, chatText } from './puppy-chat';
import { PuppyLoad } from './puppy-load';
import { PuppyResearch } from './puppy-research';
import { PuppySearch } from './puppy-search';
import { PuppyWeb } from './puppy-web';

// PuppyEngine's JSON mode (instructor) returns an object.
const StructuredReplySchema = z.record(z.string(), z.unknown());
// LLMChunking's reply: `{chunks: [...]}`, a list of texts.
const ChunksSchema = z.object({ chunks: z.array(z.string()) });

const toMessage = (m: PuppyMessage): BaseMessage =>
  m.role === 'system'
    ? new SystemMessage(m.content)
    : m.role === 'assistant'
      ? new AIMessage(m.content)
      : new HumanMessage(m.content);

/**
 * Runs one PuppyEngine edge on the blocks it reads: the llm and generator edges' model calls go
 * through the registry, searches the tenant's index, loads the tenant's files.
 */
@Injectable()
export class PuppyEdges {
  constructor(
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(PuppySearch) private readonly search: PuppySearch,
    @Inject(PuppyWeb) private readonly web: PuppyWeb,
    @Inject(PuppyResearch) private readonly research: PuppyResearch,
    @Inject(PuppyLoad) private readonly load: PuppyLoad,
  ) {}

  async run(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    ctx: { signal: AbortSignal; tenantId: string },
  ): Promise<EdgeEffect> {
    const { signal } = ctx;
    const edge = workflow.edges[edgeId];
    const d = edge.data as Record<string, unknown>;
    if (edge.type === 'search' && d['search_type'] === 'vector') {
      return this.search.run(workflow, edgeId, views, ctx.tenantId);
    }
    if (edge.type === 'search') {
      return this.outward(workflow, edgeId, views, ctx);
    }
    if (edge.type === 'deep_research') {
      return this.research.run(workflow, edgeId, views, ctx);
    }
    if (edge.type === 'load') {
      return this.load.run(workflow, edgeId, views, ctx.tenantId);
    }
    if (edge.type === 'chunk' && isLlmChunk(d)) {
      return this.llmChunk(workflow, edgeId, views, signal);
    }
    if (edge.type !== 'llm' && edge.type !== 'generator') {
      return pureEdgeEffect(workflow, edgeId, views);
    }
    // The edge's own model when the registry has it, else the agent's model for role "graph".
    const named = edgeModelName(d['model']);
    const results: unknown[] = [];
    const usages: Usage[] = [];
    // One call per looped combination, one after the other in product order, so the calls and
    // the result list keep the same order (upstream runs them in a thread pool).
    // A generator's prompt is PuppyEngine's templates filled with its queries and docs.
    const calls =
      edge.type === 'llm' ? llmCalls(workflow, edgeId, views) : generatorCalls(workflow, edgeId, views);
    for (const call of calls) {
      const model = this.models.chat({ role: PUPPY_CHAT_ROLE, ...(named ? { model: named } : {}) });
      const messages = call.messages.map(toMessage);
      if (call.structured) {
        const { value, usages: used } = await invokeStructured(model, messages, StructuredReplySchema, {
          maxRetries: 2,
          signal,
          label: `puppy_${edgeId}`,
        });
        results.push(value);
        usages.push(...used);
      } else {
        const { text, usage } = await chatText(model, messages, signal);
        results.push(text);
        usages.push(usage);
      }
    }
    return {
      blocks: writeToOutputs(workflow, edgeId, results),
      usage: sumUsages(usages),
      summary: `${edge.type} ${edgeId}: ${results.length} call${results.length === 1 ? '' : 's'}`,
    };
  }

  /** A web or qa search: one per query (a looped query block searches once per item). */
  private async outward(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    ctx: { signal: AbortSignal; tenantId: string },
  ): Promise<EdgeEffect> {
    const d = workflow.edges[edgeId].data as Record<string, unknown>;
    const extra = (d['extra_configs'] ?? {}) as Record<string, unknown>;
    const plan = searchPlan(workflow, edgeId, views);
    const results: unknown[] = [];
    const usages: Usage[] = [];
    for (const query of plan.queries) {
      if (d['search_type'] === 'web') {
        results.push(await this.web.web(ctx.tenantId, query, plan.topK, ctx.signal));
      } else {
        const { answer, usage } = await this.web.qa(query, perplexityModel(extra['model']), ctx.signal);
        results.push([answer]);
        usages.push(usage);
      }
    }
    return {
      blocks: writeToOutputs(workflow, edgeId, results),
      ...(usages.length ? { usage: sumUsages(usages) } : {}),
      summary: `search ${edgeId} (${String(d['search_type'])}): ${results.length} search(es)`,
    };
  }

  /**
   * PuppyEngine's LLM chunking: per document (per item of a looped block) one call with its prompt
   * asking for `{chunks: [...]}` natively (a JSON schema, as upstream's `response_format`), at its
   * temperature 0.9, of the edge's `extra_configs.model` (when the registry has it).
   */
  private async llmChunk(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    signal: AbortSignal,
  ): Promise<EdgeEffect> {
    const extra = ((workflow.edges[edgeId].data as Record<string, unknown>)['extra_configs'] ?? {}) as Record<
      string,
      unknown
    >;
    const named = edgeModelName(extra['model'] ?? 'openai/gpt-5');
    const { docs, looped } = chunkDocs(workflow, edgeId, views);
    const results: string[][] = [];
    const usages: Usage[] = [];
    for (const doc of docs) {
      const model = this.models.chat({
        role: PUPPY_CHAT_ROLE,
        temperature: 0.9,
        ...(named ? { model: named } : {}),
      });
      const { value, usages: used } = await invokeStructured(
        model,
        llmChunkMessages(doc, extra).map(toMessage),
        ChunksSchema,
        { maxRetries: 2, signal, label: 'chunk_json' },
      );
      results.push(value.chunks);
      usages.push(...used);
    }
    return {
      blocks: chunkOutputs(workflow, edgeId, looped ? results : results[0]),
      usage: sumUsages(usages),
      summary: `chunk ${edgeId} (llm): ${results.map((r) => r.length).join(', ')} chunk(s)`,
    };
  }
}
