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
import type { z } from 'zod';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ZodPipe } from '../http/zod-body.pipe';
import {
  type CreateModel,
  CreateModelSchema,
  IdSchema,
  ModelListQuerySchema,
  type PatchModel,
  PatchModelSchema,
} from './registry.schemas';
import { modelView } from './registry.views';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';
import { RegistryRepository } from './registry.repository';

/** Models of the vendors (admin token); (vendor, name, version) is unique. */
@Controller('v1/admin/models')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class ModelsController {
  constructor(@Inject(RegistryRepository) private readonly registry: RegistryRepository) {}

  @Post()
  async create(@Body(new ZodPipe(CreateModelSchema)) body: CreateModel) {
    return modelView(await this.registry.createModel(body));
  }

  @Get()
  async list(@Query(new ZodPipe(ModelListQuerySchema)) query: z.infer<typeof ModelListQuerySchema>) {
    return { models: (await this.registry.models(query.vendor_id)).map(modelView) };
  }

  /** Changes how the model's replies are parsed (`parser`) or made structured (`structured_output`); null clears. */
  @Patch(':model_id')
  async patch(
    @Param('model_id', new ZodPipe(IdSchema)) id: string,
    @Body(new ZodPipe(PatchModelSchema)) body: PatchModel,
  ) {
    return modelView(await this.registry.patchModel(id, body));
  }

  @Get(':model_id')
  async get(@Param('model_id', new ZodPipe(IdSchema)) id: string) {
    return modelView(await this.registry.modelOrThrow(id));
  }
}
