import { Inject, Injectable } from '@nestjs/common';
import type { AgentConfig } from '@switchyard/contracts';
import {
  type CollectionSpec,
  type FilledConfigs,
  collectionSpecs,
  isPuppyWorkflow,
  withCollectionConfigs,
  withIndexNames,
} from '@switchyard/graph';
import { DEFAULT_EMBEDDING_MODEL, KnowledgeError, KnowledgeStore } from '@switchyard/knowledge';
import { NodeDirectory } from '@switchyard/platform';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { assertStorableAgent, dslObject, storedConfig } from './agent-config.validator';

/** The most entries a block may index when the agent is saved (each one embedding input). */
export const MAX_BLOCK_ENTRIES = 5_000;

/**
 * Saving an agent: its configuration checked, and a PuppyEngine workflow's vector-collection
 * blocks instantiated (PuppyFlow's `processVectorCollection`): every block whose index set holds
 * entries (or list content cut by its key path) becomes a tenant collection, embedded through
 * libs/knowledge with the set's model (its `collection_configs.model`, else the built-in
 * model), and the block's `collection_configs` are filled with where it lives. Only the block
 * changes — data sources keep a reference (block id and index name), resolved when a search runs.
 * A collection is named by its block and a hash of its entries and model: saving the same entries
 * again reuses it, edited entries are indexed into a new one (runs of earlier versions keep theirs).
 */
@Injectable()
export class AgentCollections {
  constructor(
    @Inject(KnowledgeStore) private readonly store: KnowledgeStore,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
  ) {}

  /** The configuration to store (its DSL as JSON text); 400 naming each problem. */
  async storable(config: AgentConfig, tenantId: string): Promise<AgentConfig> {
    const raw = config.kind === 'graph' && config.dsl !== undefined ? dslObject(config.dsl) : undefined;
    const specs =
      raw !== undefined && isPuppyWorkflow(raw) ? collectionSpecs(raw, DEFAULT_EMBEDDING_MODEL) : [];
    // Data sources that name an instantiated block without an index name get the block's.
    const named = specs.length
      ? { ...config, dsl: withIndexNames(raw as Record<string, unknown>, specs) }
      : config;
    await assertStorableAgent(named, tenantId, this.directory);
    if (!specs.length) {
      return storedConfig(named);
    }
    const tooMany = specs.filter((s) => s.entries.length > MAX_BLOCK_ENTRIES);
    if (tooMany.length) {
      // Indexed while the save waits: a bound keeps one save from holding the gateway for minutes.
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'the request is invalid',
        tooMany.map((spec) => ({
          field: fieldOf(spec),
          block: spec.blockId,
          message: `the block holds ${spec.entries.length} entries to index; at most ${MAX_BLOCK_ENTRIES} are indexed when an agent is saved (put larger knowledge in a collection, /v1/collections)`,
        })),
      );
    }
    const filled: { spec: CollectionSpec; configs: FilledConfigs }[] = [];
    for (const spec of specs) {
      filled.push({ spec, configs: await this.instantiate(tenantId, spec) });
    }
    return storedConfig({
      ...named,
      dsl: withCollectionConfigs(named.dsl as Record<string, unknown>, filled),
    });
  }

  private async instantiate(tenantId: string, spec: CollectionSpec): Promise<FilledConfigs> {
    try {
      const { configs } = await this.store.ensureEntriesCollection(tenantId, {
        name: spec.name,
        model: spec.model,
        documents: spec.entries.map((e) => ({ text: e.text, metadata: e.metadata })),
      });
      return configs;
    } catch (err) {
      if (err instanceof KnowledgeError) {
        throw new ApiException(ApiErrorCode.InvalidRequest, `block ${spec.blockId} could not be indexed`, [
          { field: fieldOf(spec), block: spec.blockId, code: err.code, message: err.message },
        ]);
      }
      throw err;
    }
  }
}

/** Where a block's index set is in the request. */
function fieldOf(spec: CollectionSpec): string {
  return `dsl.blocks.${spec.blockId}.${spec.item < 0 ? 'collection_configs' : `indexingList.${spec.item}`}`;
}
