import { Inject, Injectable } from '@nestjs/common';
import {
  GraphErrorCode,
  GraphException,
  type KbChunk,
  type RetrievalParams,
  RetrievalParamsSchema,
  type VariableScope,
  getVariableValue,
  hybridSimilarity,
  kbPrompt,
  keywordSimilarity,
  pyStr,
  renderTemplate,
  retrievalDatasets,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import { KnowledgeStore, type SearchResult } from '@switchyard/knowledge';
import type { ComponentRunner } from '../component-runner';

/** What one search gave: the component's outputs and how many chunks it found. */
export interface RetrievalOutcome {
  outputs: { formalized_content: string; json?: Record<string, unknown>[] };
  found: number;
}

// A bound on the candidates weighed per collection (RAGFlow's top_k default is 1024).
const MAX_CANDIDATES = 1024;

// RAGFlow `string_format`: None → "", anything else Python's str().
const asQueryText = (v: unknown): string => (v === null || v === undefined ? '' : pyStr(v));

// The document's name as RAGFlow's `docnm_kwd` would show it, from what ingestion kept.
function titleOf(metadata: Record<string, unknown>): string | undefined {
  for (const key of ['docnm_kwd', 'document_name', 'filename', 'title', 'name']) {
    if (typeof metadata[key] === 'string' && metadata[key]) {
      return metadata[key];
    }
  }
  return undefined;
}

/**
 * RAGFlow's Retrieval component over the tenant's knowledge collections (libs/knowledge, the
 * store the retrieval service and the gateway use): `kb_ids`/`dataset_ids` name collections by
 * id or by name, `query` is a text template, `top_n` and `similarity_threshold` bound a cosine
 * (vector) search. Also the Agent's `search_my_dateset` tool.
 */
@Injectable()
export class RetrievalComponent implements ComponentRunner {
  readonly names: readonly string[] = ['Retrieval'];
  constructor(@Inject(KnowledgeStore) private readonly store: KnowledgeStore) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const params = this.params(ctx.component.id, ctx.component.params);
    const query = renderTemplate(ctx.scope, params.query ?? '', asQueryText, false);
    const { outputs, found } = await this.search(ctx.tenantId, ctx.scope, params, query);
    return {
      outputs,
      summary: found
        ? `Retrieval: ${found} chunk(s) for "${query}"`
        : `Retrieval: nothing found${query ? ` for "${query}"` : ' (no query)'}`,
    };
  }

  params(id: string, raw: Record<string, unknown>): RetrievalParams {
    const parsed = RetrievalParamsSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GraphException(
        GraphErrorCode.ComponentFailed,
        `Retrieval ${id}: param ${issue.path.join('.') || '(params)'}: ${issue.message}`,
      );
    }
    return parsed.data;
  }

  /** One search (RAGFlow `Retrieval._invoke_async` / `_retrieve_kb`); `query` already rendered. */
  async search(
    tenantId: string,
    scope: VariableScope,
    params: RetrievalParams,
    queryText: string,
  ): Promise<RetrievalOutcome> {
    const empty: RetrievalOutcome = {
      outputs: { formalized_content: params.empty_response ?? '' },
      found: 0,
    };
    const datasets = retrievalDatasets(params);
    if (!queryText) {
      return empty;
    }
    const fromMemory =
      params.retrieval_from === 'memory' ||
      (params.retrieval_from !== 'dataset' && !datasets.length && Boolean(params.memory_ids?.length));
    if (fromMemory) {
      throw new GraphException(GraphErrorCode.ComponentFailed, 'Retrieval from memory_ids is not supported');
    }
    if (params.retrieval_from !== 'dataset' && !datasets.length) {
      return empty;
    }
    const collections = await this.collections(tenantId, scope, datasets);
    if (!collections.length) {
      throw new GraphException(GraphErrorCode.ComponentFailed, 'No dataset is selected.');
    }
    const query = queryText.replace(/^user[:：\s]*/i, '');
    // Vector candidates, then RAGFlow's weighing of keyword and vector similarity, cut at the
    // similarity threshold and top_n.
    const candidates: SearchResult[] = [];
    for (const id of collections) {
      candidates.push(
        ...((await this.store.searchCollection(tenantId, id, query, {
          mode: 'vector',
          topK: Math.min(params.top_k, MAX_CANDIDATES),
          threshold: -1,
        })) ?? []),
      );
    }
    const top = candidates
      .map((r) => ({
        ...r,
        score: hybridSimilarity(keywordSimilarity(query, r.text), r.score, params.keywords_similarity_weight),
      }))
      .filter((r) => r.score >= params.similarity_threshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, params.top_n);
    if (!top.length) {
      return empty;
    }
    const chunks: KbChunk[] = top.map((r) => {
      const title = titleOf(r.metadata);
      const url = typeof r.metadata['url'] === 'string' ? r.metadata['url'] : undefined;
      return { chunk_id: r.chunk_id, content: r.text, ...(title ? { title } : {}), ...(url ? { url } : {}) };
    });
    return {
      outputs: {
        formalized_content: kbPrompt(chunks),
        json: top.map((r, i) => ({
          chunk_id: r.chunk_id,
          content: r.text,
          docnm_kwd: chunks[i].title ?? '',
          similarity: r.score,
          metadata: r.metadata,
        })),
      },
      found: top.length,
    };
  }

  /**
   * The collections the datasets name: an id or a name, or a reference (`Cpn@var`, `sys.x`) to
   * names or ids; unknown ones are left out as RAGFlow does (none at all is the caller's error).
   */
  private async collections(tenantId: string, scope: VariableScope, datasets: string[]): Promise<string[]> {
    const refs: string[] = [];
    for (const d of datasets) {
      if (!d.includes('@')) {
        refs.push(d);
        continue;
      }
      const value = getVariableValue(scope, d);
      for (const v of Array.isArray(value) ? value : [value]) {
        if (v !== null && v !== undefined && v !== '') {
          refs.push(String(v));
        }
      }
    }
    const wanted = [...new Set(refs.filter(Boolean))];
    if (!wanted.length) {
      return [];
    }
    const found = await this.store.findCollections(tenantId, wanted);
    const byRef = datasets.filter((d) => d.includes('@'));
    const missing = wanted.filter((r) => !found.has(r));
    if (byRef.length && missing.length) {
      // RAGFlow fails on a referenced dataset it cannot find (listed ids are only filtered).
      const named = missing.filter((m) => !datasets.includes(m));
      if (named.length) {
        throw new GraphException(GraphErrorCode.ComponentFailed, `Dataset(${named[0]}) does not exist.`);
      }
    }
    return [...new Set(found.values())];
  }
}
