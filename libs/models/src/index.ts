export { ChatModels, usageOf, classifyLlmError, LlmCallException } from './lib/chat-models';
export { ModelsModule } from './lib/models.module';
export { parseJsonReply } from './lib/json-reply.util';
export { invokeStructured, type StructuredCallResult } from './lib/structured-call';
