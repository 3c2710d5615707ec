export * from './lib/telemetry';
