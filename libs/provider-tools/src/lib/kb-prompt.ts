import { hashStr2Int, kbPrompt } from '@switchyard/graph';

// RAGFlow's rendering of web search results for a prompt (agent/tools/base.py `_retrieve_chunks`,
// then `kb_prompt` with hash ids, libs/graph).

export interface WebChunk {
  title: string;
  url: string;
  content: string;
  score?: number;
}

/** The `formalized_content` of web results: data images removed, 10,000 characters each, empty ones left out. */
export function formalizedContent(results: readonly WebChunk[]): string {
  return kbPrompt(
    results.flatMap((r) => {
      const content = (r.content ?? '')
        .replace(/!?\[[a-z]+\]\(data:image\/png;base64,[ 0-9A-Za-z/_=+-]+\)/g, '')
        .slice(0, 10_000);
      // A result's chunk id is the hash of its content, as upstream.
      return content ? [{ chunk_id: String(hashStr2Int(content)), content, title: r.title, url: r.url }] : [];
    }),
  );
}
