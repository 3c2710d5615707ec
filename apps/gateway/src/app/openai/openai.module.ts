import { Module } from '@nestjs/common';
import { AgentModels } from './agent-models.service';
import { ChatCompletionsController } from './chat-completions.controller';
import { ChatCompletionTurns } from './chat-completions.usecase';
import { ClientTurns } from './client-turns';
import { OpenAiModelsController } from './openai-models.controller';
import { ResponsesController } from './responses.controller';
import { ResponsesRepository } from './responses.repository';

/**
 * The OpenAI-compatible surface (`/v1/chat/completions`, `/v1/responses`, `/v1/models`): an
 * adapter over runs and agents.
 */
@Module({
  controllers: [ChatCompletionsController, OpenAiModelsController, ResponsesController],
  providers: [AgentModels, ClientTurns, ChatCompletionTurns, ResponsesRepository],
  exports: [AgentModels, ClientTurns],
})
export class OpenAiModule {}
