export * from './runs';
export * from './threads';
export * from './agents';
export * from './files';
export * from './collections';
export * from './tools';
export * from './admin';
