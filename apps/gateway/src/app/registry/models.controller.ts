import {
  Body,
  Controller,
  Get,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { z } from 'zod';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { pgCode } from './pg-errors';
import {
  type CreateModel,
  CreateModelSchema,
  IdSchema,
  ModelListQuerySchema,
  type PatchModel,
  PatchModelSchema,
} from './registry.schemas';
import { MODEL_COLUMNS, type ModelRow, modelView } from './registry.views';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';

/** Models of the vendors (admin token); (vendor, name, version) is unique. */
@Controller('v1/admin/models')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class ModelsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Post()
  async create(@Body(new ZodPipe(CreateModelSchema)) body: CreateModel) {
    let rows: ModelRow[];
    try {
      rows = (await this.ds.query(
        `INSERT INTO models (vendor_id, name, category, version, context_window, price_per_1k_input,
                             price_per_1k_output, parser, structured_output)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (vendor_id, name, version) DO NOTHING RETURNING ${MODEL_COLUMNS}`,
        [
          body.vendor_id,
          body.name,
          body.category,
          body.version,
          body.context_window ?? null,
          String(body.price_per_1k_input),
          String(body.price_per_1k_output),
          body.parser ? JSON.stringify(body.parser) : null,
          body.structured_output ?? null,
        ],
      )) as ModelRow[];
    } catch (err) {
      if (pgCode(err) === '23503') {
        throw ApiException.notFound('vendor');
      }
      throw err;
    }
    if (rows.length === 0) {
      const version = body.version ? ` version "${body.version}"` : '';
      throw new ApiException(
        ApiErrorCode.Conflict,
        `the vendor has a model "${body.name}"${version} already`,
      );
    }
    return modelView(rows[0]);
  }

  @Get()
  async list(@Query(new ZodPipe(ModelListQuerySchema)) query: z.infer<typeof ModelListQuerySchema>) {
    const rows = (await this.ds.query(
      `SELECT ${MODEL_COLUMNS} FROM models WHERE ($1::uuid IS NULL OR vendor_id = $1) ORDER BY created_at, id`,
      [query.vendor_id ?? null],
    )) as ModelRow[];
    return { models: rows.map(modelView) };
  }

  /** Changes how the model's replies are parsed (`parser`) or made structured (`structured_output`); null clears. */
  @Patch(':model_id')
  async patch(
    @Param('model_id', new ZodPipe(IdSchema)) id: string,
    @Body(new ZodPipe(PatchModelSchema)) body: PatchModel,
  ) {
    const [rows] = (await this.ds.query(
      `UPDATE models
          SET parser = CASE WHEN $2 THEN $3::jsonb ELSE parser END,
              structured_output = CASE WHEN $4 THEN $5 ELSE structured_output END
        WHERE id = $1 RETURNING ${MODEL_COLUMNS}`,
      [
        id,
        body.parser !== undefined,
        body.parser ? JSON.stringify(body.parser) : null,
        body.structured_output !== undefined,
        body.structured_output ?? null,
      ],
    )) as [ModelRow[], number];
    if (rows.length === 0) {
      throw ApiException.notFound('model');
    }
    return modelView(rows[0]);
  }

  @Get(':model_id')
  async get(@Param('model_id', new ZodPipe(IdSchema)) id: string) {
    const [row] = (await this.ds.query(`SELECT ${MODEL_COLUMNS} FROM models WHERE id = $1`, [
      id,
    ])) as ModelRow[];
    if (!row) {
      throw ApiException.notFound('model');
    }
    return modelView(row);
  }
}
