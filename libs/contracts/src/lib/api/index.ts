export * from './runs';
export * from './threads';
export * from './agents';
export * from './files';
