import { Module } from '@nestjs/common';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { AgentCollections } from './agent-collections';
import { AgentsController } from './agents.controller';
import { AgentsRepository } from './agents.repository';

/** A tenant's agents: drafts and published versions. */
@Module({
  imports: [KnowledgeModule],
  controllers: [AgentsController],
  providers: [AgentsRepository, AgentCollections],
})
export class AgentsModule {}
