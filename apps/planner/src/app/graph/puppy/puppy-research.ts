import { Inject, Injectable } from '@nestjs/common';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Usage } from '@switchyard/contracts';
import {
  type BlockView,
  type EdgeEffect,
  MAX_TOOL_CALLS,
  type PuppyWorkflow,
  deepResearchConfig,
  deepResearchSystemPrompt,
  extractToolCalls,
  firstInputTexts,
  formatVectorResults,
  formatWebResults,
  toolResultsPrompt,
  writeToOutputs,
} from '@switchyard/graph';
import { ChatModels } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { PUPPY_CHAT_ROLE, chatText } from './puppy-chat';
import { PuppySearch } from './puppy-search';
import { PuppyWeb } from './puppy-web';

/**
 * PuppyEngine's `deep_research` edge (`DeepResearcherEdge`): a bounded agentic loop. The model is
 * asked with PuppyEngine's system prompt; each `API CALL: TOOL "args"` line of its reply runs a
 * tool — VECTOR_SEARCH over the edge's data sources (resolved against their blocks and searched in
 * the tenant's index, as a search edge does), GOOGLE_SEARCH (the web search) or PERPLEXITY_SEARCH
 * (the qa search) — and the results go back as the next user message, until a reply calls no tool
 * or `max_iterations` rounds have run (then one last call answers). A tool that fails answers its
 * error as its result, as upstream does; the model's failures fail the edge.
 */
@Injectable()
export class PuppyResearch {
  constructor(
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(PuppySearch) private readonly search: PuppySearch,
    @Inject(PuppyWeb) private readonly webSearch: PuppyWeb,
  ) {}

  async run(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    ctx: { tenantId: string; signal: AbortSignal },
  ): Promise<EdgeEffect> {
    const cfg = deepResearchConfig((workflow.edges[edgeId].data as Record<string, unknown>)['extra_configs']);
    const usages: Usage[] = [];
    const answers: string[] = [];
    let rounds = 0;
    for (const query of firstInputTexts(workflow, edgeId, views)) {
      const model = this.models.chat({
        role: PUPPY_CHAT_ROLE,
        temperature: cfg.temperature,
        model: cfg.model,
      });
      const ask = async (history: BaseMessage[]): Promise<string> => {
        const { text, usage } = await chatText(model, history, ctx.signal);
        usages.push(usage);
        return text;
      };
      const history: BaseMessage[] = [
        new SystemMessage(deepResearchSystemPrompt(cfg.vector.sources.length > 0)),
        new HumanMessage(query),
      ];
      let answer: string | undefined;
      for (let i = 0; i < cfg.maxIterations && answer === undefined; i++) {
        rounds++;
        const reply = await ask(history);
        const calls = extractToolCalls(reply);
        if (!calls.length) {
          answer = reply;
          break;
        }
        const results: { tool: string; args: string; result: string }[] = [];
        for (const [n, call] of calls.entries()) {
          const result =
            n < MAX_TOOL_CALLS
              ? await this.tool(call.tool, call.args, cfg, workflow, ctx, usages)
              : `Skipped: at most ${MAX_TOOL_CALLS} tool calls run per round`;
          results.push({ ...call, result });
        }
        history.push(new AIMessage(reply), new HumanMessage(toolResultsPrompt(results)));
      }
      answers.push(answer ?? (await ask(history)));
    }
    return {
      blocks: writeToOutputs(workflow, edgeId, answers),
      usage: sumUsages(usages),
      summary: `deep_research ${edgeId}: ${answers.length} answer(s) after ${rounds} round(s)`,
    };
  }

  private async tool(
    tool: string,
    args: string,
    cfg: ReturnType<typeof deepResearchConfig>,
    workflow: PuppyWorkflow,
    ctx: { tenantId: string; signal: AbortSignal },
    usages: Usage[],
  ): Promise<string> {
    try {
      switch (tool) {
        case 'VECTOR_SEARCH': {
          if (!cfg.vector.sources.length) {
            return 'No vector databases are configured.';
          }
          const groups = await this.search.searchSources(
            workflow,
            cfg.vector.sources,
            args,
            {
              topK: cfg.vector.topK,
              ...(cfg.vector.threshold !== undefined ? { threshold: cfg.vector.threshold } : {}),
            },
            ctx.tenantId,
          );
          return formatVectorResults(groups);
        }
        case 'GOOGLE_SEARCH':
          return formatWebResults(await this.webSearch.web(ctx.tenantId, args, cfg.webTopK, ctx.signal));
        case 'PERPLEXITY_SEARCH': {
          const { answer, usage } = await this.webSearch.qa(args, cfg.qaModel, ctx.signal);
          usages.push(usage);
          return answer;
        }
        default:
          return `Unknown tool: ${tool}`;
      }
    } catch (err) {
      if (ctx.signal.aborted) {
        throw err;
      }
      const what =
        { VECTOR_SEARCH: 'Vector search', GOOGLE_SEARCH: 'Google search' }[tool] ?? 'Perplexity search';
      return `${what} error: ${(err as Error).message}`;
    }
  }
}
