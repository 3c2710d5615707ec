import { z } from 'zod';
import { CollectionConfigsSchema, SEARCH_MODES, type SearchResponse } from '@switchyard/contracts';

// The collections API's shapes (CreateCollectionSchema, SearchRequestSchema…) are in
// @switchyard/contracts (src/lib/api/collections.ts); these are the retrieval node's own.

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

/** One chunk a search found: the API's own shape (contracts' SearchResponseSchema). */
export type SearchResult = SearchResponse['results'][number];
