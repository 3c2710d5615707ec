import { Module } from '@nestjs/common';
import { AgentModels } from './agent-models.service';
import { ChatCompletionsController } from './chat-completions.controller';
import { OpenAiModelsController } from './openai-models.controller';

/** The OpenAI-compatible surface (`/v1/chat/completions`, `/v1/models`): an adapter over runs and agents. */
@Module({ controllers: [ChatCompletionsController, OpenAiModelsController], providers: [AgentModels] })
export class OpenAiModule {}
