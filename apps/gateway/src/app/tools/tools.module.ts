import { Module } from '@nestjs/common';
import { ToolsController } from './tools.controller';

/** `/v1/tools`: what the planner can offer the caller's runs. */
@Module({ controllers: [ToolsController] })
export class ToolsModule {}
