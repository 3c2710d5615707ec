import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CITATION_PROMPT } from './citation-prompt';

/** A function the Agent offers the model (OpenAI function-tool shape, RAGFlow's `get_meta()`). */
export interface AgentFunction {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required: string[] };
}

/** One `tools[]` entry of an Agent: a component used as a tool (sub-agent, Retrieval, search…). */
export const AgentToolEntrySchema = z
  .object({
    component_name: z.string().min(1),
    name: z.string().nullish(),
    id: z.string().nullish(),
    params: z.record(z.string(), z.unknown()).nullish(),
  })
  .passthrough();
export type AgentToolEntry = z.infer<typeof AgentToolEntrySchema>;

/** The params of an Agent that its tool loop reads (the rest are the LLM's). */
export const AgentParamsSchema = z
  .object({
    tools: z.array(AgentToolEntrySchema).nullish(),
    mcp: z.array(z.unknown()).nullish(),
    // RAGFlow's AgentParam default.
    max_rounds: z.coerce.number().int().min(0).default(5),
    // RAGFlow's LLMParam cites by default.
    cite: z.boolean().default(true),
    exception_goto: z.array(z.string()).nullish(),
  })
  .passthrough();
export type AgentParams = z.infer<typeof AgentParamsSchema>;

/**
 * RAGFlow offers the tool at `tools[index]` under its function name with the index appended
 * (`search_my_dateset_0`, `天气agent_0`): two tools of one kind stay apart.
 */
export const indexedToolName = (name: string, index: number): string => `${name}_${index}`;

/** The streamed note of a tool call (`async_chat_streamly_with_tools`), shown as thinking. */
export const toolRunningNote = (functionName: string): string => `Running the ${functionName} tool...`;

// AgentParam.meta: a sub-agent is called with the order, the supervisor's reasoning and context.
const SUB_AGENT_DESCRIPTION = 'This is an agent for a specific task.';
const USER_PROMPT_DESCRIPTION = 'This is the order you need to send to the agent.';
const REASONING_DESCRIPTION =
  "Supervisor's reasoning for choosing the this agent. Explain why this agent is being invoked and what is expected of it.";
const CONTEXT_DESCRIPTION =
  'All relevant background information, prior facts, decisions, and state needed by the agent to solve the current query. Should be as detailed and self-contained as possible.';

/** A sub-agent as a function: named after its display name (spaces → `_`), then indexed. */
export function subAgentFunction(entry: AgentToolEntry, index: number): AgentFunction {
  const params = entry.params ?? {};
  const userPrompt = typeof params['user_prompt'] === 'string' ? params['user_prompt'] : '';
  const description = typeof params['description'] === 'string' ? params['description'] : '';
  return {
    name: indexedToolName((entry.name ?? entry.id ?? 'agent').replace(/ /g, '_'), index),
    description: description || SUB_AGENT_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        user_prompt: {
          type: 'string',
          description: USER_PROMPT_DESCRIPTION,
          ...(userPrompt ? { default: userPrompt } : {}),
        },
        reasoning: { type: 'string', description: REASONING_DESCRIPTION },
        context: { type: 'string', description: CONTEXT_DESCRIPTION },
      },
      required: ['user_prompt', 'reasoning', 'context'],
    },
  };
}

/**
 * The user message a sub-agent gets from its caller's arguments (RAGFlow `Agent._invoke_async`):
 * the order alone, or REASONING / CONTEXT sections followed by QUERY.
 */
export function subAgentUserPrompt(args: Record<string, unknown>): string | undefined {
  const str = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : String(v));
  if (!args['user_prompt']) {
    return undefined;
  }
  let prompt = '';
  if (args['reasoning']) {
    prompt += `\nREASONING:\n${str(args['reasoning'])}\n`;
  }
  if (args['context']) {
    prompt += `\nCONTEXT:\n${str(args['context'])}\n`;
  }
  return prompt ? `${prompt}\nQUERY:\n${str(args['user_prompt'])}\n` : str(args['user_prompt']);
}

/** The Retrieval component's function (RAGFlow spells it `search_my_dateset`). */
export const RETRIEVAL_FUNCTION = 'search_my_dateset';
const RETRIEVAL_DESCRIPTION = 'This tool can be utilized for relevant content searching in the datasets.';
const RETRIEVAL_QUERY_DESCRIPTION =
  'The keywords to search the dataset. The keywords should be the most important words/terms(includes synonyms) from the original request.';

export function retrievalFunction(params: Record<string, unknown>, index: number): AgentFunction {
  const description = typeof params['description'] === 'string' ? params['description'] : '';
  return {
    name: indexedToolName(RETRIEVAL_FUNCTION, index),
    description: description || RETRIEVAL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: RETRIEVAL_QUERY_DESCRIPTION } },
      required: ['query'],
    },
  };
}

/** The Retrieval component's params (RAGFlow `RetrievalParam` defaults). */
export const RetrievalParamsSchema = z
  .object({
    query: z.string().nullish(),
    dataset_ids: z.array(z.string()).nullish(),
    kb_ids: z.array(z.string()).nullish(),
    top_n: z.coerce.number().int().positive().default(8),
    // How many candidates the vector search hands to the weighing.
    top_k: z.coerce.number().int().positive().default(1024),
    similarity_threshold: z.coerce.number().min(0).max(1).default(0.2),
    keywords_similarity_weight: z.coerce.number().min(0).max(1).default(0.5),
    empty_response: z.string().nullish(),
    retrieval_from: z.string().nullish(),
    memory_ids: z.array(z.string()).nullish(),
  })
  .passthrough();
export type RetrievalParams = z.infer<typeof RetrievalParamsSchema>;

/** `dataset_ids`, else the deprecated `kb_ids` (RAGFlow `Retrieval._dataset_ids`). */
export const retrievalDatasets = (p: RetrievalParams): string[] =>
  (p.dataset_ids?.length ? p.dataset_ids : p.kb_ids) ?? [];

// Words, and each Han/Kana/Hangul character on its own (those scripts do not separate words).
const TERM = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}_]+/gu;

const termsOf = (text: string): Set<string> => new Set(text.toLowerCase().match(TERM) ?? []);

/** The share of the query's distinct terms that occur in the text (0 for a query without terms). */
export function keywordSimilarity(query: string, text: string): number {
  const q = termsOf(query);
  if (!q.size) {
    return 0;
  }
  const t = termsOf(text);
  let hits = 0;
  for (const term of q) {
    if (t.has(term)) {
      hits++;
    }
  }
  return hits / q.size;
}

/**
 * A chunk's similarity as RAGFlow weighs it: `keywords_similarity_weight` × the keyword match
 * plus the rest × the vector (cosine) similarity; `similarity_threshold` applies to this.
 */
export const hybridSimilarity = (keyword: number, vector: number, keywordWeight: number): number =>
  keywordWeight * keyword + (1 - keywordWeight) * vector;

/** A retrieved chunk as the prompt shows it. */
export interface KbChunk {
  chunk_id: string;
  content: string;
  title?: string;
  url?: string;
}

/** Python `hash_str2int`: the SHA-1 of the text as an integer, modulo `mod`. */
export function hashStr2Int(line: string, mod = 10 ** 8): number {
  const hex = createHash('sha1').update(line, 'utf8').digest('hex');
  return Number(BigInt(`0x${hex}`) % BigInt(mod));
}

const drawNode = (key: string, line: string | undefined): string =>
  line ? `\n├── ${key}: ${line.replace(/\n+/g, ' ')}` : '';

/**
 * The chunks as RAGFlow's `kb_prompt(…, hash_id=True)` formats them for a prompt (joined with
 * `\n` into `formalized_content`): each under `ID: <sha1(chunk id) mod 500>`, its title and URL.
 */
export function kbPrompt(chunks: readonly KbChunk[]): string {
  return chunks
    .filter((c) => c.content)
    .map(
      (c) =>
        `\nID: ${hashStr2Int(c.chunk_id, 500)}` +
        drawNode('Title', c.title) +
        drawNode('URL', c.url) +
        `\n└── Content:\n${c.content}`,
    )
    .join('\n');
}

/** RAGFlow's citation guidelines, appended to the system prompt of a citing LLM/Agent. */
export const citationPrompt = (): string => CITATION_PROMPT;
