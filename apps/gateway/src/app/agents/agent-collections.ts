import { Inject, Injectable } from '@nestjs/common';
import { type AgentConfig, DEFAULT_EMBEDDING_MODEL } from '@switchyard/contracts';
import {
  type CollectionSpec,
  type FilledConfigs,
  collectionSpecs,
  isPuppyWorkflow,
  validateGraphDsl,
  vectorSourceRefs,
  withCollectionConfigs,
  withIndexNames,
} from '@switchyard/graph';
import {
  KnowledgeError,
  KnowledgeStore,
  ResolutionError,
  resolveDataSource,
  workflowCollectionBlock,
} from '@switchyard/knowledge';
import { NodeDirectory } from '@switchyard/platform';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { assertStorableAgent, dslObject, storedConfig } from './agent-config.validator';

/** The most entries a save indexes, all blocks together (each one an embedding input). */
export const MAX_SAVE_ENTRIES = 5_000;

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
    if (raw === undefined || !isPuppyWorkflow(raw)) {
      await assertStorableAgent(config, tenantId, this.directory);
      return storedConfig(config);
    }
    const specs = collectionSpecs(raw, DEFAULT_EMBEDDING_MODEL);
    // Data sources that name an instantiated block without an index name get the block's.
    const named = specs.length
      ? { ...config, dsl: withIndexNames(raw as Record<string, unknown>, specs) }
      : config;
    await assertStorableAgent(named, tenantId, this.directory);
    const total = specs.reduce((n, s) => n + s.entries.length, 0);
    if (total > MAX_SAVE_ENTRIES) {
      // Indexed while the save waits: a bound keeps one save from holding the gateway for minutes.
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'the request is invalid',
        specs.map((spec) => ({
          field: fieldOf(spec),
          block: spec.blockId,
          message: `the workflow's blocks hold ${total} entries to index (this one ${spec.entries.length}); at most ${MAX_SAVE_ENTRIES} are indexed when an agent is saved (put larger knowledge in a collection, /v1/collections)`,
        })),
      );
    }
    // Collections this save made: removed again if the save fails after all.
    const created: string[] = [];
    try {
      const filled: { spec: CollectionSpec; configs: FilledConfigs }[] = [];
      for (const spec of specs) {
        filled.push({ spec, configs: await this.instantiate(tenantId, spec, created) });
      }
      const dsl = withCollectionConfigs(named.dsl as Record<string, unknown>, filled);
      await this.assertResolvable(dsl, tenantId);
      return storedConfig({ ...named, dsl });
    } catch (err) {
      for (const id of created) {
        await this.store.deleteCollection(tenantId, id);
      }
      throw err;
    }
  }

  /**
   * Every vector search's data source must reach an index set of the tenant that is done — the
   * resolution a search makes when it runs (libs/knowledge `resolveDataSource`), made now: what
   * could only fail at run time is a 400 naming the edge, the data source, the block and index.
   */
  private async assertResolvable(dsl: unknown, tenantId: string): Promise<void> {
    const parsed = validateGraphDsl(dsl);
    if (parsed.kind !== 'puppy') {
      return;
    }
    const workflow = parsed.workflow;
    const details: Record<string, unknown>[] = [];
    for (const ref of vectorSourceRefs(workflow)) {
      const block = workflow.blocks[ref.source.id];
      const index = ref.source.index_item?.index_name || '(none)';
      let message: string | undefined;
      try {
        const resolved = resolveDataSource(
          ref.source,
          block ? workflowCollectionBlock(ref.source.id, block) : undefined,
        );
        const status = await this.store.setStatusByConfigs(tenantId, resolved.collection_configs);
        if (status !== 'done') {
          message = `block "${ref.source.id}", index "${resolved.index_name}": ${
            status
              ? `its collection is ${status}`
              : `no collection "${resolved.collection_configs.collection_name ?? ''}" of this tenant (its entries were never indexed here)`
          }`;
        }
      } catch (err) {
        if (!(err instanceof ResolutionError)) {
          throw err;
        }
        message = `block "${ref.source.id}", index "${index}": ${err.message} — give the block entries (or list content) to index, or name an index set it has`;
      }
      if (message) {
        details.push({
          field: `dsl.edges.${ref.edge}.${ref.field}`,
          edge: ref.edge,
          block: ref.source.id,
          code: 'unresolvable_data_source',
          message,
        });
      }
    }
    if (details.length) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'a vector search names data no collection holds',
        details,
      );
    }
  }

  private async instantiate(
    tenantId: string,
    spec: CollectionSpec,
    created: string[],
  ): Promise<FilledConfigs> {
    try {
      const made = await this.store.ensureEntriesCollection(tenantId, {
        name: spec.name,
        model: spec.model,
        documents: spec.entries.map((e) => ({ text: e.text, metadata: e.metadata })),
      });
      if (made.created) {
        created.push(made.collection_id);
      }
      return made.configs;
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
