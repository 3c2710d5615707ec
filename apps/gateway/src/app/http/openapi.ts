import type { OpenAPIObject } from '@nestjs/swagger';
import { z } from 'zod';
import { ActionSchema, EVENT_TYPES, RunStatusSchema } from '@switchyard/contracts';
import { CreateKeySchema, CreateTenantSchema } from '../admin/tenants.controller';
import {
  CollectionSchema,
  CreateCollectionSchema,
  IngestDocumentsSchema,
  IngestedSchema,
  SearchRequestSchema,
  SearchResponseSchema,
} from '../knowledge/collections.controller';
import { ChatCompletionRequestSchema } from '../openai/chat-completions.dto';
import { CreateAgentSchema, PatchAgentSchema } from '../agents/agents.controller';
import { CreateRunSchema, ResumeSchema } from '../runs/run.dto';
import { ApiErrorCode } from './api.exception';

// The OpenAPI description is generated from the zod schemas the gateway validates with, so the
// two cannot drift apart.
const json = (s: z.ZodType) =>
  z.toJSONSchema(s, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' });
const out = (s: z.ZodType) =>
  z.toJSONSchema(s, { target: 'openapi-3.0', io: 'output', unrepresentable: 'any' });

const ErrorSchema = z.object({
  error: z.object({
    code: z.enum(Object.values(ApiErrorCode) as [string, ...string[]]),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
const Usage = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
});
const CreatedRunSchema = z.object({
  run_id: z.string().uuid(),
  thread_id: z.string().uuid(),
  status: RunStatusSchema,
  created_at: z.string(),
});
const RunSchema = z.object({
  run_id: z.string().uuid(),
  thread_id: z.string().uuid(),
  agent_id: z.string(),
  turn: z.number().nullable(),
  status: RunStatusSchema,
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  steps: z.number(),
  usage: Usage,
  output: z.object({ answer: z.string(), title: z.string() }).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  metadata: z.record(z.string(), z.unknown()),
});

const err = (description: string) => ({
  description,
  content: { 'application/json': { schema: out(ErrorSchema) } },
});
const ok = (description: string, schema?: z.ZodType) => ({
  description,
  ...(schema ? { content: { 'application/json': { schema: out(schema) } } } : {}),
});
const body = (schema: z.ZodType) => ({
  required: true,
  content: { 'application/json': { schema: json(schema) } },
});
const id = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
});
const common = {
  401: err('missing, unknown or revoked API key'),
  404: err('no such resource for this tenant'),
  429: err('rate limited (see Retry-After)'),
};

export function buildOpenApi(): OpenAPIObject {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Switchyard gateway',
      version: '1',
      description: 'Start agent runs, follow them as resumable SSE streams, read threads and their state.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths: {
      '/v1/runs': {
        post: {
          summary: 'Start a run (one turn of a thread)',
          requestBody: body(CreateRunSchema),
          responses: {
            202: ok('the run is queued', CreatedRunSchema),
            200: ok('the same request_id was seen before: the same run', CreatedRunSchema),
            400: err('invalid body (details name the fields)'),
            409: err('thread_busy'),
            413: err('body over 1 MiB'),
            415: err('not application/json'),
            ...common,
          },
        },
      },
      '/v1/runs/{run_id}': {
        get: {
          summary: 'A run',
          parameters: [id('run_id')],
          responses: { 200: ok('the run', RunSchema), ...common },
        },
      },
      '/v1/runs/{run_id}/actions': {
        get: {
          summary: "The run's committed actions",
          parameters: [id('run_id')],
          responses: { 200: ok('actions in order', z.object({ actions: z.array(ActionSchema) })), ...common },
        },
      },
      '/v1/runs/{run_id}/events': {
        get: {
          summary: `Server-sent events (${EVENT_TYPES.join(', ')}, reset); replay after a cursor, then live until done`,
          parameters: [
            id('run_id'),
            {
              name: 'after_seq',
              in: 'query',
              required: false,
              schema: { type: 'string' },
              description: 'event id, or an integer count of events already seen',
            },
            { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'text/event-stream',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            400: err('malformed cursor'),
            ...common,
          },
        },
      },
      '/v1/runs/{run_id}/cancel': {
        post: {
          summary: 'Cancel a run',
          parameters: [id('run_id')],
          responses: {
            202: ok('cancelling'),
            200: ok('already cancelled'),
            409: err('run_finished'),
            ...common,
          },
        },
      },
      '/v1/runs/{run_id}/resume': {
        post: {
          summary: 'Answer a run waiting for human input',
          parameters: [id('run_id')],
          requestBody: body(ResumeSchema),
          responses: {
            202: ok('resuming'),
            400: err('the input does not match the input schema'),
            409: err('run_not_waiting'),
            ...common,
          },
        },
      },
      '/v1/threads/{thread_id}': {
        get: {
          summary: 'A thread',
          parameters: [id('thread_id')],
          responses: { 200: ok('the thread'), ...common },
        },
      },
      '/v1/threads/{thread_id}/runs': {
        get: {
          summary: "A thread's runs",
          parameters: [id('thread_id')],
          responses: { 200: ok('runs in turn order', z.object({ runs: z.array(RunSchema) })), ...common },
        },
      },
      '/v1/threads/{thread_id}/state': {
        get: {
          summary: 'The thread state at a version (default: latest)',
          parameters: [
            id('thread_id'),
            { name: 'version', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
          ],
          responses: { 200: ok('RuntimeState'), ...common },
        },
      },
      '/v1/chat/completions': {
        post: {
          summary: 'OpenAI-compatible chat completion (model = agent id)',
          requestBody: body(ChatCompletionRequestSchema),
          responses: {
            200: ok('chat.completion, or chat.completion.chunk events when stream is true'),
            502: err('run_failed'),
            ...common,
          },
        },
      },
      '/v1/admin/tenants': {
        post: {
          summary: 'Create a tenant (admin token)',
          requestBody: body(CreateTenantSchema),
          responses: { 201: ok('the tenant'), 409: err('name taken'), 401: err('admin token') },
        },
        get: {
          summary: 'List tenants (admin token)',
          responses: { 200: ok('tenants'), 401: err('admin token') },
        },
      },
      '/v1/admin/tenants/{tenant_id}/keys': {
        post: {
          summary: 'Create an API key; shown once',
          parameters: [id('tenant_id')],
          requestBody: body(CreateKeySchema),
          responses: { 201: ok('the key'), 401: err('admin token'), 404: err('no such tenant') },
        },
        get: {
          summary: "List a tenant's keys (no secrets)",
          parameters: [id('tenant_id')],
          responses: { 200: ok('keys'), 401: err('admin token') },
        },
      },
      '/v1/admin/tenants/{tenant_id}/keys/{key_id}': {
        delete: {
          summary: 'Revoke a key (at once)',
          parameters: [id('tenant_id'), id('key_id')],
          responses: { 200: ok('revoked'), 401: err('admin token'), 404: err('no such key') },
        },
      },
      '/v1/agents': {
        post: {
          summary: 'Create an agent (publishes version 1)',
          requestBody: body(CreateAgentSchema),
          responses: { 201: ok('the agent'), 400: err('invalid'), ...common },
        },
        get: { summary: "The tenant's agents", responses: { 200: ok('agents'), ...common } },
      },
      '/v1/agents/{agent_id}': {
        get: {
          summary: 'An agent (draft and latest version)',
          parameters: [id('agent_id')],
          responses: { 200: ok('the agent'), ...common },
        },
        patch: {
          summary: "Edit the agent's draft",
          parameters: [id('agent_id')],
          requestBody: body(PatchAgentSchema),
          responses: { 200: ok('the agent'), ...common },
        },
        delete: {
          summary: 'Delete an agent',
          parameters: [id('agent_id')],
          responses: { 200: ok('deleted'), ...common },
        },
      },
      '/v1/agents/{agent_id}/versions': {
        post: {
          summary: 'Publish the draft as a new version',
          parameters: [id('agent_id')],
          responses: { 201: ok('the version'), ...common },
        },
        get: {
          summary: 'Published versions',
          parameters: [id('agent_id')],
          responses: { 200: ok('versions'), ...common },
        },
      },
      '/v1/tools': {
        get: {
          summary: 'The tools the planner can offer (the node registry)',
          responses: { 200: ok('tools'), ...common },
        },
      },
      '/v1/collections': {
        post: {
          summary: 'Create a knowledge collection (a vector-collection block) with its index sets',
          requestBody: body(CreateCollectionSchema),
          responses: { 201: ok('the collection', CollectionSchema), 400: err('invalid body'), ...common },
        },
      },
      '/v1/collections/{id}': {
        get: {
          summary: 'A collection and the status of its index sets',
          parameters: [id('id')],
          responses: { 200: ok('the collection', CollectionSchema), ...common },
        },
      },
      '/v1/collections/{id}/documents': {
        post: {
          summary: 'Add documents: chunked, embedded and indexed into every index set',
          parameters: [id('id')],
          requestBody: body(IngestDocumentsSchema),
          responses: { 202: ok('ingested', IngestedSchema), 400: err('invalid body'), ...common },
        },
      },
      '/v1/collections/{id}/search': {
        post: {
          summary: 'Search a collection (vector, fulltext or hybrid)',
          parameters: [id('id')],
          requestBody: body(SearchRequestSchema),
          responses: {
            200: ok('results, best first', SearchResponseSchema),
            400: err('invalid body or unknown index set'),
            ...common,
          },
        },
      },
      '/healthz': { get: { summary: 'Liveness', security: [], responses: { 200: ok('alive') } } },
      '/readyz': {
        get: {
          summary: 'Readiness: Postgres, Redis, NATS',
          security: [],
          responses: { 200: ok('ready'), 503: ok('a dependency is down') },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          security: [],
          responses: { 200: ok('text exposition format') },
        },
      },
    },
  } as OpenAPIObject;
}
