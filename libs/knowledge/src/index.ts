export {
  type EmbeddingModel,
  DEFAULT_EMBEDDING_MODEL,
  HASH_EMBEDDING_DIMENSIONS,
  HashEmbeddingModel,
  UnknownEmbeddingModelError,
  cosine,
  embeddingFeatures,
  embeddingModel,
  hashEmbedding,
  normalize,
} from './lib/embedding';
export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunkText } from './lib/chunking';
export { RRF_K, reciprocalRankFusion } from './lib/fusion';
export {
  type CollectionBlock,
  type IndexingItem,
  type ResolvedDataSource,
  type ResolvedVia,
  type ResolutionErrorCode,
  ResolutionError,
  resolveDataSource,
  resolveDataSources,
} from './lib/resolution';
export * from './lib/schemas';
export {
  EXACT_VDB_TYPE,
  KnowledgeError,
  KnowledgeStore,
  type SearchOptions,
  type VectorBackendInfo,
} from './lib/knowledge.store';
