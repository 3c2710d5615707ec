import { pyJsonDumps } from '../py-value';
import type { PuppyBlock } from './workflow.schema';

/** One `data_source` entry of a vector search edge. */
export interface VectorDataSource {
  id: string;
  label?: string;
  index_item?: {
    index_name?: string;
    collection_configs?: { collection_name?: string } & Record<string, unknown>;
  };
}

interface IndexItem {
  index_name?: unknown;
  status?: unknown;
  entries?: unknown;
  collection_configs?: { collection_name?: unknown };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The documents a data source searches, resolved as PuppyEngine's `SearchConfigParser` does: a
 * `collection_configs.collection_name` given on the edge names the collection; otherwise the data
 * block's `indexingList` item whose `index_name` matches, else its first item with status `done`.
 * A collection is the matching indexing item's `entries` when the block has one, else the block's
 * list content (what was embedded into it). Nothing resolved = an empty collection (upstream then
 * searches the collection named "" and finds nothing).
 */
export function collectionDocuments(
  source: VectorDataSource,
  block: PuppyBlock | undefined,
  content: unknown,
): unknown[] {
  if (!block) {
    return [];
  }
  const items = (Array.isArray(block.data.indexingList) ? block.data.indexingList : []).filter(
    isRecord,
  ) as IndexItem[];
  const named = source.index_item?.collection_configs?.collection_name;
  if (named) {
    const item = items.find((i) => i.collection_configs?.collection_name === named || i.index_name === named);
    if (item && Array.isArray(item.entries) && item.entries.length) {
      return item.entries;
    }
    return Array.isArray(content) ? content : [];
  }
  const wanted = source.index_item?.index_name;
  const item =
    (wanted ? items.find((i) => i.index_name === wanted) : undefined) ??
    items.find((i) => i.status === 'done');
  return item && Array.isArray(item.entries) ? item.entries : [];
}

/** The text of a document: a string, an entry's `content`, else its JSON. */
export function documentText(doc: unknown): string {
  if (typeof doc === 'string') {
    return doc;
  }
  if (isRecord(doc) && typeof doc['content'] === 'string') {
    return doc['content'];
  }
  return pyJsonDumps(doc);
}

/**
 * The offline vector search: no embedding service, so each document is scored by the share of its
 * characters found in the query, |chars(query) ∩ chars(text)| / |chars(text)| (over distinct
 * characters), and the `topK` best are returned as texts, ties in collection order. The edge's
 * `threshold` is not applied, as upstream does not pass it to the store.
 */
export function vectorSearch(query: string, documents: readonly unknown[], topK: number): string[] {
  const q = new Set([...query]);
  const scored = documents.map((doc, index) => {
    const text = documentText(doc);
    const chars = new Set([...text]);
    const shared = [...chars].filter((c) => q.has(c)).length;
    return { text, index, score: chars.size ? shared / chars.size : 0 };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, Math.max(0, topK)).map((s) => s.text);
}
