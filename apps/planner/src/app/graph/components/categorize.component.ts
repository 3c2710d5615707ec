import { Inject, Injectable } from '@nestjs/common';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import {
  CategorizeParamsSchema,
  type ComponentContext,
  type ComponentEffect,
  canvasHistory,
  categorizeSystemPrompt,
  categorizeUserPrompt,
  getVariableValue,
  historyWindow,
  pickCategory,
} from '@switchyard/graph';
import { ChatModels, classifyLlmError, usageOf } from '@switchyard/models';
import type { ComponentRunner } from '../component-runner';

const CHAT_ROLE = 'graph';

/** RAGFlow's Categorize: the model picks a category, whose successors run next. */
@Injectable()
export class CategorizeComponent implements ComponentRunner {
  readonly names: readonly string[] = ['Categorize'];

  constructor(@Inject(ChatModels) private readonly models: ChatModels) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const params = CategorizeParamsSchema.parse(ctx.component.params);
    const query = getVariableValue(ctx.scope, params.query || 'sys.query');
    const messages = [
      new SystemMessage(categorizeSystemPrompt(params)),
      new HumanMessage(
        categorizeUserPrompt(
          historyWindow(
            canvasHistory(ctx.scope.globals),
            ctx.resumes,
            params.message_history_window_size ?? 1,
          ),
          query === null || query === undefined ? '' : String(query),
        ),
      ),
    ];
    // The registry's chat model: the run's pinned model for role "graph", else the default; metered.
    const reply = await this.models
      .chat({ role: CHAT_ROLE })
      .invoke(messages, { signal: ctx.signal })
      .catch((err: unknown) => {
        throw classifyLlmError(err);
      });
    const answer = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    const decision = pickCategory(params, answer);
    return {
      outputs: { category_name: decision.category, _next: decision.next },
      outcome: { next: decision.next },
      usage: usageOf(reply),
      summary: `Categorize: "${decision.category}" → ${decision.next.join(', ')}`,
    };
  }
}
