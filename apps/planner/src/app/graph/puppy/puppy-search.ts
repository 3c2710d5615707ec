import { Inject, Injectable } from '@nestjs/common';
import {
  type BlockView,
  type EdgeEffect,
  type PuppyWorkflow,
  type SearchSource,
  searchPlan,
  writeToOutputs,
} from '@switchyard/graph';
import {
  KnowledgeStore,
  type ResolvedDataSource,
  type SearchResult,
  resolveDataSources,
  workflowCollectionBlock,
} from '@switchyard/knowledge';
import { collectUsage } from '@switchyard/models';

/** What a hit gives the block it writes: the entry's `retrieval_content` (PuppyEngine), else its text. */
const hitValue = (r: SearchResult): unknown =>
  'retrieval_content' in r.metadata ? r.metadata['retrieval_content'] : r.text;

/**
 * A PuppyEngine vector search edge on the tenant's real index: each data source is resolved at run
 * time against the block it names (libs/knowledge `resolveDataSources`, the default agent's
 * resolution: the index set named, else an embedded legacy configs, else the block's first done
 * set), and the collection its `collection_configs` name is searched by cosine similarity with the
 * set's embedding model. A block that does not resolve, or names a collection the tenant does not
 * have, fails the edge naming the block and index.
 */
@Injectable()
export class PuppySearch {
  constructor(@Inject(KnowledgeStore) private readonly store: KnowledgeStore) {}

  async run(
    workflow: PuppyWorkflow,
    edgeId: string,
    views: Record<string, BlockView>,
    tenantId: string,
  ): Promise<EdgeEffect> {
    const plan = searchPlan(workflow, edgeId, views);
    const resolved = this.resolve(workflow, plan.sources);
    const results: unknown[][] = [];
    const { usage } = await collectUsage(async () => {
      for (const query of plan.queries) {
        results.push(await this.hits(tenantId, resolved, query, plan));
      }
    });
    const via = resolved.map((r) => `${r.id} → ${r.index_name} (${r.via})`).join(', ');
    return {
      blocks: writeToOutputs(workflow, edgeId, results),
      ...(usage.total_tokens > 0 ? { usage } : {}),
      summary: `search ${edgeId}: ${results.map((r) => r.length).join(', ')} hit(s) from ${via}`,
    };
  }

  /**
   * Deep research's VECTOR_SEARCH: each data source searched on its own, its hits (or the error
   * that stopped it) under the collection's name, as PuppyEngine lists them.
   */
  async searchSources(
    workflow: PuppyWorkflow,
    sources: readonly SearchSource[],
    query: string,
    opts: { topK: number; threshold?: number },
    tenantId: string,
  ): Promise<{ database: string; results: unknown[] | string }[]> {
    const groups: { database: string; results: unknown[] | string }[] = [];
    for (const [i, source] of sources.entries()) {
      let database = `database_${i}`;
      try {
        const [resolved] = this.resolve(workflow, [source]);
        database = resolved.collection_configs.collection_name || database;
        groups.push({ database, results: await this.hits(tenantId, [resolved], query, opts) });
      } catch (err) {
        groups.push({ database, results: `Error searching database: ${(err as Error).message}` });
      }
    }
    return groups;
  }

  private resolve(workflow: PuppyWorkflow, sources: readonly SearchSource[]): ResolvedDataSource[] {
    const blocks = new Map(
      sources
        .filter((s) => workflow.blocks[s.id] !== undefined)
        .map((s) => [s.id, workflowCollectionBlock(s.id, workflow.blocks[s.id])] as const),
    );
    return resolveDataSources(sources, blocks);
  }

  /** The `topK` best entries for the query (one per entry), each as its `retrieval_content`. */
  private async hits(
    tenantId: string,
    resolved: readonly ResolvedDataSource[],
    query: string,
    opts: { topK: number; threshold?: number },
  ): Promise<unknown[]> {
    const sources = resolved.map((r) => ({
      block: r.id,
      index_name: r.index_name,
      collection_configs: r.collection_configs,
    }));
    // Twice as many hits, then one per entry: an entry longer than a chunk has several.
    const hits = await this.store.searchByConfigs(tenantId, sources, query, {
      mode: 'vector',
      topK: opts.topK * 2,
      threshold: opts.threshold ?? Number.NEGATIVE_INFINITY,
    });
    const seen = new Set<string>();
    const values: unknown[] = [];
    for (const hit of hits) {
      const key = `${hit.index_name}\u0000${JSON.stringify(hit.metadata)}`;
      if (!seen.has(key) && values.length < opts.topK) {
        seen.add(key);
        values.push(hitValue(hit));
      }
    }
    return values;
  }
}
