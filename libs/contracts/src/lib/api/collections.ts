import { z } from 'zod';

// The HTTP shapes of /v1/collections (docs/api.md), shared by the gateway, the knowledge store
// (which takes the validated bodies) and @switchyard/client.

/** An index set's chunking when its request names none. */
export const DEFAULT_CHUNK_SIZE = 800;
export const DEFAULT_CHUNK_OVERLAP = 100;
/** The built-in embedding model (no vendor, no key): an index set's model when it names none. */
export const DEFAULT_EMBEDDING_MODEL = 'hash-embedding-v1';

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

/** `POST /v1/collections`. */
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

/** `POST /v1/collections/:id/documents` as JSON (a multipart upload is turned into the same). */
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

/** `POST /v1/collections/:id/search`. */
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

/**
 * A collection as `POST /v1/collections` and `GET /v1/collections/:id` show it: the knowledge
 * block, its index sets with their status (`error` only on a failed one).
 */
export const CollectionSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  indexingList: z.array(
    z.object({
      index_name: z.string(),
      status: z.enum(INDEX_STATUSES),
      error: z.string().optional(),
      collection_configs: CollectionConfigsSchema,
    }),
  ),
});

/** The answer to `POST /v1/collections/:id/documents` (202): how many documents were ingested. */
export const IngestedSchema = z.object({ ingested: z.number().int() });

/** The answer to `POST /v1/collections/:id/search`: the chunks found, best first. */
export const SearchResponseSchema = z.object({
  results: z.array(
    z.object({
      // Stable while the collection is not re-indexed.
      chunk_id: z.string(),
      text: z.string(),
      score: z.number(),
      metadata: z.record(z.string(), z.unknown()),
      index_name: z.string(),
    }),
  ),
});
export type Collection = z.infer<typeof CollectionSchema>;
export type Ingested = z.infer<typeof IngestedSchema>;
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
