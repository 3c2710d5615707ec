export * from './lib/state.schema';
export * from './lib/messages.schema';
export * from './lib/events.schema';
export * from './lib/subjects';
export * from './lib/node-registry.schema';
export * from './lib/zod-error.util';
export * from './lib/tool-call';
export * from './lib/human-input';
