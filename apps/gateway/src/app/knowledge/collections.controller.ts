import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  UploadedFiles,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { FilesInterceptor } from '@nestjs/platform-express';
import type { Request } from 'express';
import { LlmCallException } from '@switchyard/models';
import { z } from 'zod';
import {
  type CreateCollection,
  CreateCollectionSchema,
  type IngestDocuments,
  IngestDocumentsSchema,
  type Ingested,
  type SearchRequest,
  SearchRequestSchema,
  type SearchResponse,
} from '@switchyard/contracts';
import {
  type CollectionBlock,
  KnowledgeError,
  KnowledgeStore,
  MAX_TABLE_ROWS,
  MAX_TEXT_CHARS,
  ParseError,
  fileKind,
  parseFile,
  parsedText,
  UnknownEmbeddingModelError,
} from '@switchyard/knowledge';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';

/** Files one multipart ingestion takes, and the size of each. */
export const MAX_UPLOAD_FILES = 20;
export const MAX_UPLOAD_FILE_BYTES = 20 * 1024 * 1024;

const CollectionIdSchema = z.string().uuid();
export const ReindexSchema = z.object({ index_name: z.string().min(1).max(200).optional() }).strict();
type Reindex = z.infer<typeof ReindexSchema>;

/**
 * Knowledge collections (seed 000's vector-collection blocks; `id` is the block id), tenant-scoped:
 * another tenant's collection answers 404. Ingestion runs inline in the request: chunking,
 * embeddings (built in, or a registry model called with the tenant's keys and metered) and
 * inserts, so the request answers 202 once every index set is `done` (or `failed` with its
 * reason). A queue-backed ingestion for large uploads can replace it behind the same statuses.
 */
@Controller('v1/collections')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class CollectionsController {
  constructor(@Inject(KnowledgeStore) private readonly store: KnowledgeStore) {}

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ZodPipe(CreateCollectionSchema)) body: CreateCollection,
  ): Promise<CollectionBlock> {
    return this.store.createCollection(tenant.tenantId, body);
  }

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    return { collections: await this.store.listCollections(tenant.tenantId) };
  }

  /** Deletes the collection with its index sets, documents and chunks. */
  @Delete(':id')
  @HttpCode(200)
  async remove(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(CollectionIdSchema)) id: string) {
    if (!(await this.store.deleteCollection(tenant.tenantId, id))) {
      throw ApiException.notFound('collection');
    }
    return { deleted: true, id };
  }

  @Get(':id/documents')
  async documents(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(CollectionIdSchema)) id: string) {
    const docs = await this.store.listDocuments(tenant.tenantId, id);
    if (!docs) {
      throw ApiException.notFound('collection');
    }
    return {
      documents: docs.map((d) => ({ ...d, created_at: new Date(d.created_at).toISOString() })),
    };
  }

  /** Deletes a document and its chunks: search no longer finds it. */
  @Delete(':id/documents/:document_id')
  @HttpCode(200)
  async removeDocument(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(CollectionIdSchema)) id: string,
    @Param('document_id', new ZodPipe(CollectionIdSchema)) documentId: string,
  ) {
    if (!(await this.store.deleteDocument(tenant.tenantId, id, documentId))) {
      throw ApiException.notFound('document');
    }
    return { deleted: true, id: documentId };
  }

  @Get(':id')
  async get(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(CollectionIdSchema)) id: string) {
    const block = await this.store.getCollection(tenant.tenantId, id);
    if (!block) {
      throw ApiException.notFound('collection');
    }
    return block;
  }

  /**
   * JSON `{documents: [{text, metadata?}]}`, or multipart/form-data with `files` (txt, md, csv,
   * json, pdf; each becomes one document, tables one line per row) and an optional `metadata`
   * field (a JSON object added to every file's metadata beside `filename` and `content_type`).
   */
  @Post(':id/documents')
  @HttpCode(202)
  @UseInterceptors(
    FilesInterceptor('files', MAX_UPLOAD_FILES, {
      limits: { fileSize: MAX_UPLOAD_FILE_BYTES, files: MAX_UPLOAD_FILES, fields: 5, fieldSize: 64 * 1024 },
    }),
  )
  async ingest(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(CollectionIdSchema)) id: string,
    @Req() req: Request,
    @UploadedFiles() files: UploadedFile[] | undefined,
  ): Promise<Ingested> {
    const body = req.is('multipart/form-data')
      ? await documentsFromFiles(files ?? [], req.body as Record<string, unknown>)
      : new ZodPipe(IngestDocumentsSchema).transform(req.body);
    const done = await this.store.ingest(tenant.tenantId, id, body);
    if (!done) {
      throw ApiException.notFound('collection');
    }
    return { ingested: done.ingested };
  }

  /**
   * `{index_name?}`: indexes the collection's stored documents again (every index set, or the one
   * named) with each set's own settings, inline like an ingestion; 202 with the sets' statuses.
   */
  @Post(':id/reindex')
  @HttpCode(202)
  async reindex(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(CollectionIdSchema)) id: string,
    @Body(new ZodPipe(ReindexSchema)) body: Reindex,
  ) {
    try {
      const done = await this.store.reindex(tenant.tenantId, id, body.index_name);
      if (!done) {
        throw ApiException.notFound('collection');
      }
      return done;
    } catch (err) {
      if (err instanceof KnowledgeError) {
        throw ApiException.invalidField('index_name', err.message);
      }
      throw err;
    }
  }

  @Post(':id/search')
  @HttpCode(200)
  async search(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(CollectionIdSchema)) id: string,
    @Body(new ZodPipe(SearchRequestSchema)) body: SearchRequest,
  ): Promise<SearchResponse> {
    try {
      const results = await this.store.searchCollection(tenant.tenantId, id, body.query, {
        mode: body.mode,
        topK: body.top_k,
        threshold: body.threshold,
        indexName: body.index_name,
      });
      if (!results) {
        throw ApiException.notFound('collection');
      }
      return { results };
    } catch (err) {
      if (err instanceof KnowledgeError || err instanceof UnknownEmbeddingModelError) {
        throw new ApiException(ApiErrorCode.InvalidRequest, err.message, [
          { field: err instanceof KnowledgeError ? 'index_name' : 'model', message: err.message },
        ]);
      }
      if (err instanceof LlmCallException) {
        // The index set's registry embedding model could not embed the query (no key, vendor down…).
        throw new ApiException(ApiErrorCode.Unavailable, `embedding the query failed: ${err.message}`);
      }
      throw err;
    }
  }
}

/** What multer hands over for each uploaded file (memory storage). */
export interface UploadedFile {
  originalname: string;
  mimetype: string;
  buffer: Buffer;
  size: number;
}

const UploadMetadataSchema = z.record(z.string(), z.unknown());

/**
 * Turns uploaded files into documents with the same parsers as the `preprocess` node. A file no
 * parser reads (415), one that does not parse or holds no text (400), or one beyond what a
 * document keeps (413) fails the whole request naming the file: nothing is half-ingested.
 */
async function documentsFromFiles(
  files: UploadedFile[],
  fields: Record<string, unknown>,
): Promise<IngestDocuments> {
  if (files.length === 0) {
    throw new ApiException(
      ApiErrorCode.InvalidRequest,
      'a multipart ingestion needs at least one part named "files"',
      [{ field: 'files', message: 'no file uploaded' }],
    );
  }
  let shared: Record<string, unknown> = {};
  if (fields['metadata'] !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(String(fields['metadata']));
    } catch {
      raw = undefined;
    }
    const parsed = UploadMetadataSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'the "metadata" field must be a JSON object', [
        { field: 'metadata', message: 'not a JSON object' },
      ]);
    }
    shared = parsed.data;
  }
  const documents: IngestDocuments['documents'] = [];
  for (const file of files) {
    const name = file.originalname;
    const kind = fileKind(name, file.mimetype);
    if (kind === 'other') {
      throw new ApiException(
        ApiErrorCode.UnsupportedMediaType,
        `file "${name}" (${file.mimetype}) is not a type that can be ingested: txt, md, csv, json or pdf`,
      );
    }
    let parsed: Awaited<ReturnType<typeof parseFile>>;
    try {
      parsed = await parseFile(kind, file.buffer, file.mimetype);
    } catch (err) {
      if (err instanceof ParseError) {
        throw new ApiException(ApiErrorCode.InvalidRequest, `file "${name}": ${err.message}`, [
          { field: 'files', message: `${name}: ${err.message}` },
        ]);
      }
      throw err;
    }
    if (parsed.value['truncated'] === true) {
      throw new ApiException(
        ApiErrorCode.PayloadTooLarge,
        `file "${name}" is larger than one document holds (${MAX_TEXT_CHARS} characters, ${MAX_TABLE_ROWS} table rows): split it`,
      );
    }
    const text = parsedText(parsed)?.trim();
    if (!text) {
      throw new ApiException(ApiErrorCode.InvalidRequest, `file "${name}" holds no text to ingest`, [
        { field: 'files', message: `${name}: no text` },
      ]);
    }
    documents.push({ text, metadata: { ...shared, filename: name, content_type: file.mimetype, kind } });
  }
  return { documents };
}
