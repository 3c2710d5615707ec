import { Inject, Injectable } from '@nestjs/common';
import {
  ProviderKeys,
  TAVILY_TOOL_DESCRIPTION,
  TAVILY_TOOL_PARAMETERS,
  TavilyClient,
  type TavilySearchOutput,
} from '@switchyard/provider-tools';
import type { ComponentContext, ComponentEffect } from '@switchyard/graph';
import type { ComponentRunner } from '../component-runner';
import type { GraphTool, GraphToolFactory } from '../graph-tool';
import { providerTool } from './provider-tool';
import { toolInput } from './tool-input';

// The fields RAGFlow fills from the params when the call does not give them.
const PARAM_FIELDS = [
  'search_depth',
  'topic',
  'max_results',
  'days',
  'include_answer',
  'include_image_descriptions',
  'include_domains',
  'exclude_domains',
];

/** TavilySearch: a web search with the tenant's Tavily key, as a component and as an Agent tool. */
@Injectable()
export class TavilySearchComponent implements GraphToolFactory, ComponentRunner {
  readonly names: readonly string[] = ['TavilySearch'];
  readonly componentName = 'TavilySearch';

  constructor(
    @Inject(TavilyClient) private readonly client: TavilyClient,
    @Inject(ProviderKeys) private readonly keys: ProviderKeys,
  ) {}

  async search(
    tenantId: string,
    params: Record<string, unknown>,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<TavilySearchOutput> {
    const request: Record<string, unknown> = { query: String(args['query'] ?? '') };
    for (const field of PARAM_FIELDS) {
      const value = args[field] ?? params[field];
      if (value !== undefined && value !== null) {
        request[field] = value;
      }
    }
    const apiKey = await this.keys.activeKey(tenantId, 'tavily');
    return this.client.search(request as { query: string }, apiKey, signal);
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const p = ctx.component.params;
    const args: Record<string, unknown> = {
      query: toolInput(ctx.scope, p, 'query', '{sys.query}'),
      topic: toolInput(ctx.scope, p, 'topic', 'general'),
      include_domains: toolInput(ctx.scope, p, 'include_domains', []),
      exclude_domains: toolInput(ctx.scope, p, 'exclude_domains', []),
    };
    const out = await this.search(ctx.tenantId, p, args, ctx.signal);
    return {
      outputs: { formalized_content: out.formalized_content, json: out.json },
      summary: `TavilySearch: ${out.json.length} results`,
    };
  }

  create(entry: { name?: string; params: Record<string, unknown> }, index: number): GraphTool {
    return providerTool({
      functionName: 'tavily_search',
      index,
      entryParams: entry.params,
      description: TAVILY_TOOL_DESCRIPTION,
      parameters: TAVILY_TOOL_PARAMETERS,
      errorPrefix: 'Tavily',
      call: async (args, ctx) =>
        (await this.search(ctx.tenantId, entry.params, args, ctx.signal)).formalized_content,
    });
  }
}
