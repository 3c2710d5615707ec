import { Module } from '@nestjs/common';
import { AgentsRepository } from '../agents/agents.repository';
import { ThreadsModule } from '../threads/threads.module';
import { LangGraphAssistantsController } from './assistants.controller';
import { LangGraphRuns } from './langgraph-runs.service';
import { LangGraphRepository } from './langgraph.repository';
import { LangGraphRunsController } from './runs.controller';
import { LangGraphCronsController } from './crons.controller';
import { CronsRepository } from './crons.repository';
import { Crons } from './crons.service';
import { LangGraphStoreController } from './store.controller';
import { StoreRepository } from './store.repository';
import { LangGraphThreadsController } from './threads.controller';
import { WebhookDelivery } from '../webhooks/webhook-delivery.service';
import { WebhooksController } from '../webhooks/webhooks.controller';
import { WebhooksRepository } from '../webhooks/webhooks.repository';

/**
 * The LangGraph Platform-compatible surface at the gateway's root (`/assistants`, `/threads`,
 * `/threads/:id/runs`), for `@langchain/langgraph-sdk` clients: an adapter over the gateway's
 * runs, threads and agents (docs/api.md "LangGraph Platform compatibility").
 */
@Module({
  imports: [ThreadsModule],
  controllers: [
    LangGraphAssistantsController,
    LangGraphThreadsController,
    LangGraphRunsController,
    LangGraphStoreController,
    WebhooksController,
    LangGraphCronsController,
  ],
  providers: [
    AgentsRepository,
    LangGraphRepository,
    LangGraphRuns,
    StoreRepository,
    WebhooksRepository,
    WebhookDelivery,
    CronsRepository,
    Crons,
  ],
})
export class LangGraphModule {}
