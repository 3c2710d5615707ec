import { Module } from '@nestjs/common';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';

/** A tenant's agents: drafts and published versions. */
@Module({ controllers: [AgentsController], providers: [AgentsRepository] })
export class AgentsModule {}
