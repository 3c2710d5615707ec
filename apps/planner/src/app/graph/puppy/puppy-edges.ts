import { Inject, Injectable } from '@nestjs/common';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import type { Usage } from '@switchyard/contracts';
import {
  type BlockView,
  type EdgeEffect,
  type PuppyMessage,
  type PuppyWorkflow,
  generatorCalls,
  llmCalls,
  pureEdgeEffect,
  writeToOutputs,
} from '@switchyard/graph';
import { ChatModels, classifyLlmError, invokeStructured, usageOf } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { PuppyLoad } from './puppy-load';
import { PuppySearch } from './puppy-search';

const CHAT_ROLE = 'graph';
// PuppyEngine's JSON mode (instructor) returns an object.
const StructuredReplySchema = z.record(z.string(), z.unknown());

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
    @Inject(PuppyLoad) private readonly load: PuppyLoad,
  ) {}

  async run(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    ctx: { signal: AbortSignal; tenantId: string },
  ): Promise<EdgeEffect> {
    const { signal } = ctx;
    const type = workflow.edges[edgeId].type;
    if (type === 'search') {
      return this.search.run(workflow, edgeId, views, ctx.tenantId);
    }
    if (type === 'load') {
      return this.load.run(workflow, edgeId, views, ctx.tenantId);
    }
    if (type !== 'llm' && type !== 'generator') {
      return pureEdgeEffect(workflow, edgeId, views);
    }
    const results: unknown[] = [];
    const usages: Usage[] = [];
    // One call per looped combination, one after the other in product order, so the calls and
    // the result list keep the same order (upstream runs them in a thread pool).
    // A generator's prompt is PuppyEngine's templates filled with its queries and docs.
    const calls =
      type === 'llm' ? llmCalls(workflow, edgeId, views) : generatorCalls(workflow, edgeId, views);
    for (const call of calls) {
      // The registry's chat model for role "graph": the edge's `model` is not mapped to the registry.
      const model = this.models.chat({ role: CHAT_ROLE });
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
        const reply = await model.invoke(messages, { signal }).catch((err: unknown) => {
          throw classifyLlmError(err);
        });
        results.push(typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content));
        usages.push(usageOf(reply));
      }
    }
    return {
      blocks: writeToOutputs(workflow, edgeId, results),
      usage: sumUsages(usages),
      summary: `${type} ${edgeId}: ${results.length} call${results.length === 1 ? '' : 's'}`,
    };
  }
}
