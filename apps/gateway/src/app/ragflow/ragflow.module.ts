import { Module } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository';
import { OpenAiModule } from '../openai/openai.module';
import { ThreadsRepository } from '../threads/threads.repository';
import { RagflowAgents } from './ragflow-agents.service';
import { RagflowAgentsController } from './ragflow.controller';
import { RagflowTasksController } from './ragflow-tasks.controller';
import { RagflowRepository } from './ragflow.repository';

/** `/api/v1/agents…`: RAGFlow's agent HTTP API (sessions, completions) over agents, threads and runs. */
@Module({
  imports: [OpenAiModule],
  controllers: [RagflowAgentsController, RagflowTasksController],
  providers: [RagflowAgents, RagflowRepository, AgentsRepository, ThreadsRepository],
})
export class RagflowModule {}
