export {
  type EmbeddingModel,
  type EmbeddingResolver,
  HASH_EMBEDDING_DIMENSIONS,
  HashEmbeddingModel,
  UnknownEmbeddingModelError,
  cosine,
  embeddingFeatures,
  embeddingModel,
  hashEmbedding,
  normalize,
  resolveEmbeddingModel,
} from './lib/embedding';
export { chunkText } from './lib/chunking';
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
  workflowCollectionBlock,
} from './lib/resolution';
export * from './lib/schemas';
export {
  ENTRIES_SET,
  EXACT_VDB_TYPE,
  KnowledgeError,
  KnowledgeStore,
  PGVECTOR_VDB_TYPE,
  type SearchOptions,
} from './lib/knowledge.store';
export {
  PGVECTOR_DIMENSIONS,
  type VectorBackend,
  type VectorBackendInfo,
  detectVectorBackend,
  pgvectorLiteral,
} from './lib/vector-backend';
export { detoastedArray, dotProductSql } from './lib/vector-sql';
export {
  MEMORY_TEXT_MAX,
  type MemoryHit,
  type MemoryOwner,
  type MemorySearch,
  MemoryStore,
  type MemoryTurn,
  memoryText,
} from './lib/memory.store';
export {
  type Bucket,
  type FileKind,
  type Parsed,
  MAX_TABLE_ROWS,
  MAX_TEXT_CHARS,
  ParseError,
  fileKind,
  parseFile,
  parsedText,
} from './lib/files/parsers';
export { minimalPdf } from './lib/files/minimal-pdf';
