import { Module } from '@nestjs/common';
import { RunsController } from './runs.controller';

/** `/v1/runs`: create, read, follow (SSE), cancel, resume. RunsService is shared (core module). */
@Module({ controllers: [RunsController] })
export class RunsModule {}
