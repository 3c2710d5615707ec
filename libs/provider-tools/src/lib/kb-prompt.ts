import { createHash } from 'node:crypto';

// RAGFlow's rendering of search results for a prompt (agent/tools/base.py `_retrieve_chunks`,
// rag/prompts/generator.py `kb_prompt` with hash ids).

export interface WebChunk {
  title: string;
  url: string;
  content: string;
  score?: number;
}

/** `hash_str2int(text, mod)`: the SHA-1 of the text as an integer, modulo `mod`. */
export function hashStr2Int(text: string, mod = 100_000_000): number {
  const hex = createHash('sha1').update(text, 'utf8').digest('hex');
  return Number(BigInt(`0x${hex}`) % BigInt(mod));
}

const drawNode = (key: string, line: string | undefined): string =>
  line ? `\n├── ${key}: ${line.replace(/\n+/g, ' ')}` : '';

/** The `formalized_content` of web results: one entry per non-empty result, data images removed, 10,000 characters each. */
export function formalizedContent(results: readonly WebChunk[]): string {
  const entries: string[] = [];
  for (const r of results) {
    const content = (r.content ?? '')
      .replace(/!?\[[a-z]+\]\(data:image\/png;base64,[ 0-9A-Za-z/_=+-]+\)/g, '')
      .slice(0, 10_000);
    if (!content) {
      continue;
    }
    const chunkId = String(hashStr2Int(content));
    let entry = `\nID: ${hashStr2Int(chunkId, 500)}`;
    entry += drawNode('Title', r.title);
    entry += drawNode('URL', r.url);
    entry += `\n└── Content:\n${content}`;
    entries.push(entry);
  }
  return entries.join('\n');
}
