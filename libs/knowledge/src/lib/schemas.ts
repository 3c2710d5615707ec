import { z } from 'zod';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from './chunking';
import { DEFAULT_EMBEDDING_MODEL } from './embedding';

export const INDEX_STATUSES = ['pending', 'done', 'failed'] as const;
export type IndexStatus = (typeof INDEX_STATUSES)[number];

export const SEARCH_MODES = ['vector', 'fulltext', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export const IndexNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'letters, digits, "_", "." or "-" (1..64, starting alphanumeric)',
  );

/** Where an index set's chunks live (seed 000's `collection_configs`). */
export const CollectionConfigsSchema = z.object({
  collection_name: z.string(),
  set_name: z.string(),
  model: z.string(),
  vdb_type: z.string(),
  user_id: z.string(),
});
export type CollectionConfigs = z.infer<typeof CollectionConfigsSchema>;

export const IndexSetInputSchema = z
  .object({
    index_name: IndexNameSchema,
    model: z.string().min(1).max(200).default(DEFAULT_EMBEDDING_MODEL),
    chunk_size: z.number().int().min(20).max(8000).default(DEFAULT_CHUNK_SIZE),
    chunk_overlap: z.number().int().min(0).max(4000).default(DEFAULT_CHUNK_OVERLAP),
  })
  .strict()
  .refine((s) => s.chunk_overlap < s.chunk_size, {
    message: 'chunk_overlap must be smaller than chunk_size',
    path: ['chunk_overlap'],
  });
export type IndexSetInput = z.infer<typeof IndexSetInputSchema>;

export const CreateCollectionSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    index_sets: z
      .array(IndexSetInputSchema)
      .min(1)
      .max(16)
      .refine((sets) => new Set(sets.map((s) => s.index_name)).size === sets.length, {
        message: 'index_name must be unique within a collection',
      }),
  })
  .strict();
export type CreateCollection = z.infer<typeof CreateCollectionSchema>;

export const IngestDocumentsSchema = z
  .object({
    documents: z
      .array(
        z
          .object({
            text: z.string().min(1).max(1_000_000),
            metadata: z.record(z.string(), z.unknown()).default({}),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
  })
  .strict();
export type IngestDocuments = z.infer<typeof IngestDocumentsSchema>;

export const SearchRequestSchema = z
  .object({
    query: z.string().trim().min(1).max(4000),
    top_k: z.number().int().min(1).max(100).default(10),
    threshold: z.number().default(0),
    index_name: IndexNameSchema.optional(),
    mode: z.enum(SEARCH_MODES).default('vector'),
  })
  .strict();
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

/** A retrieval request's data source: a reference to a collection block (seed 000's edge `data_source`). */
export const DataSourceRefSchema = z.object({
  id: z.string().min(1).max(200),
  label: z.string().max(200).optional(),
  index_item: z
    .object({
      index_name: z.string().max(200).optional(),
      // Legacy: an edge that still embeds the block's configs; partial objects are tolerated.
      collection_configs: CollectionConfigsSchema.partial().passthrough().optional(),
    })
    .optional(),
});
export type DataSourceRef = z.infer<typeof DataSourceRefSchema>;

/** The `retrieval` node's (tool's) arguments. */
export const RetrievalArgsSchema = z
  .object({
    query: z.string().trim().min(1).max(4000).describe('What to look for.'),
    data_source: z
      .array(DataSourceRefSchema)
      .min(1)
      .max(16)
      .describe(
        'Knowledge collections to search: { id: collection (block) id, index_item?: { index_name? } }.',
      ),
    top_k: z.coerce.number().int().min(1).max(100).default(10).describe('How many chunks at most.'),
    threshold: z.coerce.number().default(0).describe('Minimum score of a result.'),
    mode: z.enum(SEARCH_MODES).default('vector').describe('vector, fulltext or hybrid (rank fusion).'),
  })
  .strict();
export type RetrievalArgs = z.infer<typeof RetrievalArgsSchema>;

export interface SearchResult {
  /** The chunk's id (stable while the collection is not re-indexed). */
  chunk_id: string;
  text: string;
  score: number;
  metadata: Record<string, unknown>;
  index_name: string;
}
