export { TestStack, SERVICE_APPS, type ServiceApp, type TestStackOptions } from './lib/test-stack';
export { readSse, type SseFrame, type SseRead } from './lib/sse-client';
export { freePort, waitFor } from './lib/free-port';
export { NatsServerProcess, sleep, within } from './lib/nats-server';
export { ScriptedLlmProcess, type ScriptedRequest } from './lib/scripted-llm-process';
export { PgvectorServer } from './lib/pgvector-server';
export { DnsTestServer } from './lib/dns-server';
export { failingPorts } from './lib/failing-ports';
export { dropDatabase } from './lib/scratch-database';
