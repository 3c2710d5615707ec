import { Inject, Injectable } from '@nestjs/common';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Usage } from '@switchyard/contracts';
import { QA_SYSTEM_PROMPT, type WebItem } from '@switchyard/graph';
import { ChatModels } from '@switchyard/models';
import { ProviderKeys, TavilyClient } from '@switchyard/provider-tools';
import { PUPPY_CHAT_ROLE, chatText } from './puppy-chat';

/**
 * The searches of a PuppyEngine workflow that leave the tenant's data: `web` (PuppyEngine's Google
 * search) through the tenant's Tavily key, each hit as Google's item (`title`, `link`, `snippet`)
 * with the page text as `content`; `qa` (its Perplexity search) as one model call through the
 * registry with PuppyEngine's prompt, the model named when the registry has it.
 */
@Injectable()
export class PuppyWeb {
  constructor(
    @Inject(TavilyClient) private readonly tavily: TavilyClient,
    @Inject(ProviderKeys) private readonly keys: ProviderKeys,
    @Inject(ChatModels) private readonly models: ChatModels,
  ) {}

  async web(tenantId: string, query: string, topK: number, signal: AbortSignal): Promise<WebItem[]> {
    if (!query.trim()) {
      return [];
    }
    const apiKey = await this.keys.activeKey(tenantId, 'tavily');
    const out = await this.tavily.search({ query, max_results: topK }, apiKey, signal);
    return out.json.slice(0, topK).map((r) => ({
      title: r.title,
      link: r.url,
      snippet: r.content ?? '',
      content: r.raw_content || r.content || '',
    }));
  }

  async qa(query: string, model: string, signal: AbortSignal): Promise<{ answer: string; usage: Usage }> {
    if (!query.trim()) {
      // PuppyEngine: "Empty query for Perplexity search".
      throw Object.assign(new Error('Empty query for Perplexity search'), { retryable: false });
    }
    const { text, usage } = await chatText(
      this.models.chat({ role: PUPPY_CHAT_ROLE, model }),
      [new SystemMessage(QA_SYSTEM_PROMPT), new HumanMessage(query)],
      signal,
    );
    return { answer: text, usage };
  }
}
