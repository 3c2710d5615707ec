import { Module } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository';
import { OpenAiModule } from '../openai/openai.module';
import { A2aPushDelivery } from './a2a-push-delivery.service';
import { A2aController } from './a2a.controller';
import { A2aRepository } from './a2a.repository';
import { A2aTasks } from './a2a.service';

/** `/a2a/<agent>`: each agent of the tenant as an A2A server (tasks are runs, contexts threads). */
@Module({
  imports: [OpenAiModule],
  controllers: [A2aController],
  providers: [A2aTasks, A2aRepository, A2aPushDelivery, AgentsRepository],
})
export class A2aModule {}
