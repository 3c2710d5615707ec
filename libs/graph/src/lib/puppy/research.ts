import { pyStr } from '../py-value';
import type { SearchSource } from './edge-run';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The model an edge names: a string, or PuppyFlow's `{<model>: {inference_method?}}` object (its
 * first key). Undefined when it names none.
 */
export function edgeModelName(model: unknown): string | undefined {
  if (typeof model === 'string') {
    return model.trim() || undefined;
  }
  if (isRecord(model)) {
    return Object.keys(model)[0];
  }
  return undefined;
}

// PuppyEngine's qa search: the editor's Perplexity names → OpenRouter's (qa_search.py).
const PERPLEXITY_MODELS: Record<string, string> = {
  'llama-3.1-sonar-huge-128k-online': 'perplexity/sonar-pro',
  sonar: 'perplexity/sonar',
  'sonar-pro': 'perplexity/sonar-pro',
  'sonar-reasoning-pro': 'perplexity/sonar-reasoning-pro',
};

/** The model a qa (Perplexity) search asks, named as PuppyEngine names it (`perplexity/sonar` by default). */
export function perplexityModel(model: unknown): string {
  const name = edgeModelName(model) ?? 'perplexity/sonar';
  return PERPLEXITY_MODELS[name] ?? (name.includes('/') ? name : `perplexity/${name}`);
}

/** PuppyEngine's qa search prompt (`LLMQASearchStrategy.perplexity_search`). */
export const QA_SYSTEM_PROMPT =
  'You are an artificial intelligence assistant and you need to engage in a helpful, detailed, polite conversation with a user.';

/** One web search hit as PuppyEngine's Google search writes it: the page's title, link and text. */
export interface WebItem {
  title: string;
  link: string;
  snippet: string;
  content: string;
}

/** The most a web search returns (the search provider's own limit). */
export const WEB_TOP_K_MAX = 20;

/** Deep research's settings (`extra_configs`, PuppyFlow's defaults where absent). */
export interface DeepResearchConfig {
  model?: string;
  temperature: number;
  maxIterations: number;
  vector: { sources: SearchSource[]; topK: number; threshold?: number };
  webTopK: number;
  qaModel: string;
}

/** An upper bound on deep research's rounds: each is a model call and up to MAX_TOOL_CALLS searches. */
export const MAX_RESEARCH_ITERATIONS = 10;
/** Tool calls run per round at most (the rest are answered as skipped). */
export const MAX_TOOL_CALLS = 8;

export function deepResearchConfig(extra: unknown): DeepResearchConfig {
  const e = isRecord(extra) ? extra : {};
  const v = isRecord(e['vector_search_configs']) ? e['vector_search_configs'] : {};
  const g = isRecord(e['google_search_configs']) ? e['google_search_configs'] : {};
  const p = isRecord(e['perplexity_search_configs']) ? e['perplexity_search_configs'] : {};
  const sources = (Array.isArray(v['data_source']) ? v['data_source'] : []).filter(isRecord).filter((s) => {
    const item = isRecord(s['index_item']) ? s['index_item'] : {};
    const cc = isRecord(item['collection_configs']) ? item['collection_configs'] : {};
    return cc['enabled'] !== false;
  }) as unknown as SearchSource[];
  const model = edgeModelName(e['model']);
  return {
    ...(model ? { model } : {}),
    temperature: typeof e['temperature'] === 'number' ? e['temperature'] : 0.1,
    maxIterations: typeof e['max_iterations'] === 'number' ? e['max_iterations'] : 5,
    vector: {
      sources,
      topK: typeof v['top_k'] === 'number' ? v['top_k'] : 5,
      ...(typeof v['threshold'] === 'number' ? { threshold: v['threshold'] } : { threshold: 0.7 }),
    },
    webTopK: typeof g['top_k'] === 'number' ? g['top_k'] : 3,
    qaModel: perplexityModel(p['model']),
  };
}

/** Deep research's system prompt (`DeepResearcherEdge._create_system_prompt`). */
export function deepResearchSystemPrompt(withVector: boolean): string {
  const descriptions = [
    ...(withVector ? ['VECTOR_SEARCH - Search across multiple vector databases for relevant documents'] : []),
    'GOOGLE_SEARCH - Search the web using Google for current information',
    'PERPLEXITY_SEARCH - Search using Perplexity API for detailed answers',
  ];
  let prompt = `You are an intelligent research assistant with access to multiple tools. Your goal is to provide comprehensive and accurate answers to user queries.

Available Tools:
${descriptions.join('\n')}

Instructions:
- Analyze the user's query carefully
- If you need more information to provide a complete answer, use the available tools
- To call a tool, use the format: API CALL: TOOL_NAME [arguments]
- Examples:
  API CALL: GOOGLE_SEARCH "latest climate change data 2024"
  API CALL: PERPLEXITY_SEARCH "quantum computing applications"
`;
  if (withVector) {
    prompt += '  API CALL: VECTOR_SEARCH "machine learning algorithms"\n';
  }
  prompt += `- After receiving tool results, analyze them and either:
  a) Call more tools if you need additional information
  b) Provide a comprehensive final answer based on all gathered information

- Always provide well-structured, accurate, and comprehensive answers
- Cite sources when possible
`;
  return prompt;
}

/** The tool calls in a reply: lines `API CALL: NAME args`, quotes around the args dropped. */
export function extractToolCalls(reply: string): { tool: string; args: string }[] {
  const calls: { tool: string; args: string }[] = [];
  // Python's `re.findall(r'API CALL: (\w+)\s*(.*?)(?=\n|$)', reply, re.MULTILINE)`.
  for (const m of reply.matchAll(/API CALL: (\w+)\s*(.*?)(?=\n|$)/gm)) {
    let args = m[2].trim();
    if ((args.startsWith('"') && args.endsWith('"')) || (args.startsWith("'") && args.endsWith("'"))) {
      args = args.slice(1, -1);
    }
    calls.push({ tool: m[1].toUpperCase(), args });
  }
  return calls;
}

/** The user message that carries a round's tool results back (`_create_context_from_results`). */
export function toolResultsPrompt(
  results: readonly { tool: string; args: string; result: string }[],
): string {
  const context = results
    .flatMap((r) => [`Tool: ${r.tool}`, `Arguments: ${r.args}`, `Result: ${r.result}`, '-'.repeat(50)])
    .join('\n');
  return `Tool execution results:\n${context}\n\nPlease continue with your research or provide the final answer.`;
}

/** GOOGLE_SEARCH's result text (`_execute_google_search`). */
export function formatWebResults(items: readonly WebItem[]): string {
  return items
    .map(
      (item, i) =>
        `${i + 1}. ${item.title || 'No title'}\n   URL: ${item.link || 'No link'}\n   Content: ${item.content || 'No content'}\n`,
    )
    .join('\n');
}

/** VECTOR_SEARCH's result text: per collection its hits, numbered (`_execute_vector_search`). */
export function formatVectorResults(
  groups: readonly { database: string; results: unknown[] | string }[],
): string {
  if (!groups.length) {
    return 'No results found from any vector database.';
  }
  const lines: string[] = [];
  for (const g of groups) {
    lines.push(`--- Results from ${g.database} ---`);
    if (Array.isArray(g.results)) {
      g.results.forEach((item, j) => {
        const content = isRecord(item) && 'content' in item ? pyStr(item['content']) : pyStr(item);
        lines.push(`${j + 1}. ${content}`);
      });
    } else {
      lines.push(g.results);
    }
    lines.push('');
  }
  return lines.join('\n');
}
