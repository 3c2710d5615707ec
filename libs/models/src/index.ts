export { ChatModels, usageOf, classifyLlmError, LlmCallException } from './lib/chat-models';
export { ModelsModule, createChatModels, loadModelsConfig } from './lib/models.module';
export { EmbeddingModels, type RegistryEmbeddingModel, type EmbeddingScope } from './lib/registry-embeddings';
export { invokeStructured, type StructuredCallResult } from './lib/structured-call';
export {
  type LlmCallContext,
  runWithLlmCallContext,
  currentLlmCallContext,
  collectUsage,
} from './lib/llm-call-context';
export { RegistryChatModel } from './lib/registry-chat-model';
export { registryEnvSchema, type RegistryEnv, type ModelsConfig } from './lib/models.config';
export { TaskCalls, UNSENT_CALL_MS } from './lib/task-calls';
