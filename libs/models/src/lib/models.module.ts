import { type DynamicModule, Module } from '@nestjs/common';
import { llmEnvSchema, loadConfig } from '@switchyard/config';
import { ChatModels } from './chat-models';

@Module({})
export class ModelsModule {
  static forRoot(): DynamicModule {
    const cfg = loadConfig(llmEnvSchema);
    return {
      module: ModelsModule,
      global: true,
      providers: [{ provide: ChatModels, useValue: new ChatModels(cfg) }],
      exports: [ChatModels],
    };
  }
}
