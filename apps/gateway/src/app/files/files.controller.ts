import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UploadedFile,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Response } from 'express';
import { z } from 'zod';
import { FileStore } from '@switchyard/persistence';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
// One upload size for the gateway: a file of a run is taken as a document of a collection is.
import { MAX_UPLOAD_FILE_BYTES, type UploadedFile as Upload } from '../knowledge/collections.controller';

const FileIdSchema = z.string().uuid();
const ListQuerySchema = z.object({
  run_id: z.string().uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

// RFC 6266: an ASCII fallback and the UTF-8 name.
const disposition = (name: string) =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

/**
 * The tenant's files: uploads a graph run's inputs refer to (`{"id": …}` in Begin's form, read by
 * ExcelProcessor), and the files a run's components made (DocGenerator, ExcelProcessor `output`).
 * Another tenant's file answers 404. Content is always served as an attachment with its stored
 * type and `nosniff`, so an HTML file cannot run in the gateway's origin.
 */
@Controller('v1/files')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class FilesController {
  constructor(@Inject(FileStore) private readonly files: FileStore) {}

  /** multipart/form-data with one file in the field `file`. */
  @Post()
  @UseInterceptors(
    FileInterceptor('file', { limits: { fileSize: MAX_UPLOAD_FILE_BYTES, files: 1, fields: 0 } }),
  )
  async upload(@Tenant() tenant: TenantContext, @UploadedFile() file: Upload | undefined) {
    if (!file) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        'send the file as multipart/form-data in the field "file"',
        [{ field: 'file', message: 'required' }],
      );
    }
    const name = file.originalname.trim();
    if (!name || name.length > 255) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'the file needs a name of 1 to 255 characters', [
        { field: 'file', message: 'filename must be 1 to 255 characters' },
      ]);
    }
    return this.files.put({
      tenantId: tenant.tenantId,
      name,
      mimeType: file.mimetype || 'application/octet-stream',
      content: file.buffer,
    });
  }

  @Get()
  async list(
    @Tenant() tenant: TenantContext,
    @Query(new ZodPipe(ListQuerySchema)) q: z.infer<typeof ListQuerySchema>,
  ) {
    return { files: await this.files.list(tenant.tenantId, { runId: q.run_id, limit: q.limit }) };
  }

  @Get(':id')
  async get(@Tenant() tenant: TenantContext, @Param('id', new ZodPipe(FileIdSchema)) id: string) {
    const file = await this.files.get(tenant.tenantId, id);
    if (!file) {
      throw ApiException.notFound('file');
    }
    return file;
  }

  @Get(':id/content')
  async content(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(FileIdSchema)) id: string,
    @Res() res: Response,
  ): Promise<void> {
    const found = await this.files.read(tenant.tenantId, id);
    if (!found) {
      throw ApiException.notFound('file');
    }
    res
      .status(200)
      .set({
        'Content-Type': found.file.mime_type,
        'Content-Length': String(found.content.length),
        'Content-Disposition': disposition(found.file.name),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
      })
      .end(found.content);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Tenant() tenant: TenantContext,
    @Param('id', new ZodPipe(FileIdSchema)) id: string,
  ): Promise<void> {
    if (!(await this.files.remove(tenant.tenantId, id))) {
      throw ApiException.notFound('file');
    }
  }
}
