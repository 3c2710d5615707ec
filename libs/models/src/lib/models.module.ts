import { type DynamicModule, Module } from '@nestjs/common';
import { llmEnvSchema, loadConfigOrExit } from '@switchyard/config';
import { ChatModels } from './chat-models';

@Module({})
export class ModelsModule {
  static forRoot(service: string): DynamicModule {
    const cfg = loadConfigOrExit(llmEnvSchema, service);
    return {
      module: ModelsModule,
      global: true,
      providers: [{ provide: ChatModels, useValue: new ChatModels(cfg) }],
      exports: [ChatModels],
    };
  }
}
