import type { OpenAPIObject } from '@nestjs/swagger';
import { z } from 'zod';
import {
  ActionSchema,
  AgentVersionListSchema,
  AgentVersionSchema,
  AgentViewSchema,
  ApiKeySchema,
  CancelledRunSchema,
  CollectionSchema,
  CreateAgentSchema,
  CreateCollectionSchema,
  CreateKeySchema,
  CreateRunSchema,
  CreateTenantSchema,
  CreatedAgentSchema,
  CreatedApiKeySchema,
  CreatedRunSchema,
  DeletedAgentSchema,
  EVENT_TYPES,
  ForkRequestSchema,
  ForkResponseSchema,
  IngestDocumentsSchema,
  IngestedSchema,
  PatchAgentSchema,
  ResumeSchema,
  ResumedRunSchema,
  RunPageSchema,
  RunViewSchema,
  SearchRequestSchema,
  SearchResponseSchema,
  StoredFileSchema,
  TenantSchema,
  ThreadPageSchema,
  ThreadVersionSchema,
  ThreadViewSchema,
  ToolListSchema,
  UsagePageSchema,
  UserProfileSchema,
} from '@switchyard/contracts';
import { ProviderSchema, SetProviderKeySchema } from '../admin/provider-keys.controller';
import { ReindexSchema } from '../knowledge/collections.controller';
import { ChatCompletionRequestSchema } from '../openai/chat-completions.dto';
import { ResponseRequestSchema } from '../openai/responses.dto';
import { CompletionSchema } from '../ragflow/ragflow.dto';
import {
  CreateEndpointSchema,
  CreateModelSchema,
  CreateVendorKeySchema,
  CreateVendorSchema,
  EndpointSchema,
  ModelSchema,
  PatchModelSchema,
  PatchTenantSchema,
  UsageByModelSchema,
  VendorKeySchema,
  VendorSchema,
} from '../registry/registry.schemas';
import { CreateMcpServerSchema, McpServerSchema } from '../mcp/mcp-servers.schemas';
import {
  CreateDataSourceSchema,
  DataSourceSchema,
  ToolOutputSchema,
} from '../data-sources/data-sources.schemas';
import { langGraphPaths } from './openapi-langgraph';
import { body, common, err, id, ok, query } from './openapi-parts';

const RunWithModelUsageSchema = RunViewSchema.extend({ usage_by_model: UsageByModelSchema });

const WebhookSecretSchema = z.object({ secret: z.string(), header: z.literal('X-Switchyard-Signature') });

const admin = {
  401: err('missing or wrong admin token'),
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
        get: {
          summary: "The tenant's runs, newest first, filtered and paged (next_cursor → cursor)",
          parameters: [
            {
              name: 'status',
              in: 'query',
              required: false,
              schema: { type: 'string' },
              description: 'one or several statuses, comma-separated',
            },
            { name: 'agent_id', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'thread_id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } },
            { name: 'since', in: 'query', required: false, schema: { type: 'string', format: 'date-time' } },
            { name: 'until', in: 'query', required: false, schema: { type: 'string', format: 'date-time' } },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 200 },
            },
            { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: ok('a page of runs', RunPageSchema),
            400: err('a bad filter (details name it)'),
            ...common,
          },
        },
      },
      '/v1/runs/{run_id}': {
        get: {
          summary: 'A run',
          parameters: [id('run_id')],
          responses: {
            200: ok('the run, with its metered usage per model', RunWithModelUsageSchema),
            ...common,
          },
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
            {
              name: 'format',
              in: 'query',
              required: false,
              schema: { type: 'string', enum: ['switchyard', 'ragflow'] },
              description: "`ragflow`: a graph run in RAGFlow's stream vocabulary (docs/api.md)",
            },
            { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'text/event-stream',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            400: err('malformed cursor or unknown format'),
            ...common,
          },
        },
      },
      '/v1/runs/{run_id}/cancel': {
        post: {
          summary: 'Cancel a run',
          parameters: [id('run_id')],
          responses: {
            202: ok('cancelling', CancelledRunSchema),
            200: ok('already cancelled', CancelledRunSchema),
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
            202: ok('resuming', ResumedRunSchema),
            400: err('the input does not match the input schema'),
            409: err('run_not_waiting'),
            ...common,
          },
        },
      },
      '/v1/threads': {
        get: {
          summary: "The tenant's threads, newest first (keyset pages)",
          parameters: [
            query('agent_id', { type: 'string' }),
            query('since', { type: 'string', format: 'date-time' }),
            query('until', { type: 'string', format: 'date-time' }),
            query('limit', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
            query('cursor', { type: 'string' }, 'next_cursor of the previous page'),
          ],
          responses: {
            200: ok('a page of threads', ThreadPageSchema),
            ...common,
          },
        },
      },
      '/v1/threads/{thread_id}': {
        get: {
          summary: 'A thread',
          parameters: [id('thread_id')],
          responses: { 200: ok('the thread', ThreadViewSchema), ...common },
        },
        delete: {
          summary: 'Delete a thread and what its runs wrote (metered usage stays)',
          parameters: [id('thread_id')],
          responses: {
            200: ok('{deleted: true, thread_id, runs_deleted}'),
            409: err('a run of the thread is queued, running or waiting'),
            ...common,
          },
        },
      },
      '/v1/threads/{thread_id}/runs': {
        get: {
          summary: "A thread's runs",
          parameters: [id('thread_id')],
          responses: { 200: ok('runs in turn order', z.object({ runs: z.array(RunViewSchema) })), ...common },
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
      '/v1/threads/{thread_id}/versions': {
        get: {
          summary: "The thread's versions, newest first (a fork version names the version it branched from)",
          parameters: [
            id('thread_id'),
            { name: 'before', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 1000 },
            },
          ],
          responses: {
            200: ok('versions', z.object({ versions: z.array(ThreadVersionSchema) })),
            ...common,
          },
        },
      },
      '/v1/threads/{thread_id}/fork': {
        post: {
          summary:
            'Branch the thread from a version: go back to it (with edits to the state) and run what was pending there, or a new turn with input',
          parameters: [id('thread_id')],
          requestBody: body(ForkRequestSchema),
          responses: {
            201: ok('the branch and its run', ForkResponseSchema),
            400: err(
              'not a step boundary, an edit that is not allowed or leaves the state invalid, input inside a turn',
            ),
            409: err('thread_busy, or the fork point is gone (retention)'),
            ...common,
          },
        },
      },
      '/v1/users/{user_id}/profile': {
        put: {
          summary:
            "Store a user's profile (a JSON object of at most 64 KiB); runs with metadata.user_id use it",
          parameters: [
            { name: 'user_id', in: 'path', required: true, schema: { type: 'string', maxLength: 200 } },
          ],
          requestBody: body(UserProfileSchema),
          responses: {
            200: ok('the stored profile'),
            400: err('invalid_request'),
            413: err('payload_too_large'),
            ...common,
          },
        },
        get: {
          summary: "A user's profile",
          parameters: [
            { name: 'user_id', in: 'path', required: true, schema: { type: 'string', maxLength: 200 } },
          ],
          responses: { 200: ok('the stored profile'), ...common },
        },
        delete: {
          summary: "Delete a user's profile",
          parameters: [
            { name: 'user_id', in: 'path', required: true, schema: { type: 'string', maxLength: 200 } },
          ],
          responses: { 204: ok('deleted'), ...common },
        },
      },
      '/v1/chat/completions': {
        post: {
          summary:
            "OpenAI-compatible chat completion (model = agent id or name[@version]; client tools; response_format). Errors in OpenAI's shape {error: {message, type, param, code}}",
          requestBody: body(ChatCompletionRequestSchema),
          responses: {
            200: ok(
              'chat.completion (finish_reason stop, or tool_calls when the run waits for client functions), or chat.completion.chunk events when stream is true',
            ),
            ...common,
            400: ok('unsupported or invalid field, named in error.param'),
            404: ok('model_not_found'),
            502: err('run_failed'),
          },
        },
      },
      '/v1/responses': {
        post: {
          summary:
            "OpenAI Responses API (model = agent; previous_response_id continues its thread; function tools; text.format; background). Errors in OpenAI's shape",
          requestBody: body(ResponseRequestSchema),
          responses: {
            200: ok(
              'the response (status completed: an answer or function_call items; failed; cancelled; queued/in_progress when background), or its stream events when stream is true',
            ),
            ...common,
            400: ok('unsupported or invalid field, named in error.param'),
            404: ok('model_not_found, previous_response_not_found'),
          },
        },
      },
      '/v1/responses/{id}': {
        get: {
          summary: 'A stored response (read from its run while the run works)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('the response'), ...common, 404: ok('response_not_found') },
        },
        delete: {
          summary: 'Delete a stored response (its run stays)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: ok('{id, object: response.deleted, deleted: true}'),
            ...common,
            404: ok('response_not_found'),
          },
        },
      },
      '/v1/responses/{id}/cancel': {
        post: {
          summary: 'Cancel an unfinished response: its run is cancelled',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: ok('the cancelled response'),
            ...common,
            400: ok('already finished'),
            404: ok('response_not_found'),
          },
        },
      },
      '/v1/responses/{id}/input_items': {
        get: {
          summary: "A response's input items (order asc|desc, limit 1-100, after)",
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: ok('{object: list, data, first_id, last_id, has_more}'),
            ...common,
            404: ok('response_not_found'),
          },
        },
      },
      '/v1/models': {
        get: {
          summary: "OpenAI model list: the tenant's agents and default",
          responses: {
            200: ok('{object: list, data: [{id, object: model, created, owned_by, name, version}]}'),
            ...common,
          },
        },
      },
      '/v1/models/{model}': {
        get: {
          summary: 'One agent as an OpenAI model (id or name, optionally @version)',
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            ...common,
            200: ok('{id, object: model, created, owned_by, name, version}'),
            404: ok('model_not_found'),
          },
        },
      },
      '/v1/admin/tenants': {
        post: {
          summary: 'Create a tenant (admin token)',
          requestBody: body(CreateTenantSchema),
          responses: { 201: ok('the tenant', TenantSchema), 409: err('name taken'), 401: err('admin token') },
        },
        get: {
          summary: 'List tenants (admin token)',
          responses: {
            200: ok('tenants', z.object({ tenants: z.array(TenantSchema) })),
            401: err('admin token'),
          },
        },
      },
      '/v1/admin/tenants/{tenant_id}/keys': {
        post: {
          summary: 'Create an API key; shown once',
          parameters: [id('tenant_id')],
          requestBody: body(CreateKeySchema),
          responses: {
            201: ok('the key (shown only here)', CreatedApiKeySchema),
            401: err('admin token'),
            404: err('no such tenant'),
          },
        },
        get: {
          summary: "List a tenant's keys (no secrets)",
          parameters: [id('tenant_id')],
          responses: { 200: ok('keys', z.object({ keys: z.array(ApiKeySchema) })), 401: err('admin token') },
        },
      },
      '/v1/admin/tenants/{tenant_id}/keys/{key_id}': {
        delete: {
          summary: 'Revoke a key (at once)',
          parameters: [id('tenant_id'), id('key_id')],
          responses: { 200: ok('revoked', ApiKeySchema), 401: err('admin token'), 404: err('no such key') },
        },
      },
      '/v1/admin/tenants/{tenant_id}': {
        get: {
          summary: 'A tenant, with its token budget and tokens used',
          parameters: [id('tenant_id')],
          responses: { 200: ok('the tenant', TenantSchema), 404: err('no such tenant'), ...admin },
        },
        patch: {
          summary:
            "Set the tenant's token budget (null = unlimited), limits, memory model and weight (null = 1)",
          parameters: [id('tenant_id')],
          requestBody: body(PatchTenantSchema),
          responses: {
            200: ok('the tenant', TenantSchema),
            400: err('invalid body'),
            404: err('no such tenant'),
            ...admin,
          },
        },
      },
      '/v1/admin/tenants/{tenant_id}/usage/reset': {
        post: {
          summary: "Reset the tenant's tokens_used to 0 (a new budget period)",
          parameters: [id('tenant_id')],
          responses: { 200: ok('the tenant', TenantSchema), 404: err('no such tenant'), ...admin },
        },
      },
      '/v1/admin/tenants/{tenant_id}/provider-keys': {
        get: {
          summary: "List the tenant's provider keys, revoked ones included (never their secrets)",
          parameters: [id('tenant_id')],
          responses: { 200: ok('keys'), 404: err('no such tenant'), ...admin },
        },
      },
      '/v1/admin/tenants/{tenant_id}/provider-keys/{provider}': {
        put: {
          summary:
            "Set or rotate the tenant's key of an external provider (write-only secret, stored sealed)",
          parameters: [
            id('tenant_id'),
            { name: 'provider', in: 'path', required: true, schema: z.toJSONSchema(ProviderSchema) },
          ],
          requestBody: body(SetProviderKeySchema),
          responses: {
            200: ok('the active key, without its secret'),
            400: err('invalid body or provider'),
            404: err('no such tenant'),
            ...admin,
          },
        },
        delete: {
          summary: "Revoke the tenant's active key of the provider",
          parameters: [
            id('tenant_id'),
            { name: 'provider', in: 'path', required: true, schema: z.toJSONSchema(ProviderSchema) },
          ],
          responses: { 200: ok('the revoked key'), 404: err('no active key'), ...admin },
        },
      },
      '/v1/admin/vendors': {
        post: {
          summary: 'Register a model vendor',
          requestBody: body(CreateVendorSchema),
          responses: {
            201: ok('the vendor', VendorSchema),
            400: err('invalid body'),
            409: err('name taken'),
            ...admin,
          },
        },
        get: {
          summary: 'List vendors',
          responses: { 200: ok('vendors', z.object({ vendors: z.array(VendorSchema) })), ...admin },
        },
      },
      '/v1/admin/vendors/{vendor_id}': {
        get: {
          summary: 'A vendor',
          parameters: [id('vendor_id')],
          responses: { 200: ok('the vendor', VendorSchema), 404: err('no such vendor'), ...admin },
        },
      },
      '/v1/admin/vendors/{vendor_id}/keys': {
        post: {
          summary:
            'Add an API key of the vendor (write-only secret, stored sealed; tenant_id = only for that tenant)',
          parameters: [id('vendor_id')],
          requestBody: body(CreateVendorKeySchema),
          responses: {
            201: ok('the key, without its secret', VendorKeySchema),
            400: err('invalid body'),
            404: err('no such vendor or tenant'),
            409: err('the same secret is registered for this vendor and tenant'),
            ...admin,
          },
        },
        get: {
          summary: "List the vendor's keys (never their secrets)",
          parameters: [id('vendor_id')],
          responses: {
            200: ok('keys', z.object({ keys: z.array(VendorKeySchema) })),
            404: err('no such vendor'),
            ...admin,
          },
        },
      },
      '/v1/admin/vendors/{vendor_id}/keys/{key_id}': {
        delete: {
          summary: 'Revoke a key (at once, for good)',
          parameters: [id('vendor_id'), id('key_id')],
          responses: { 200: ok('the revoked key', VendorKeySchema), 404: err('no such key'), ...admin },
        },
      },
      '/v1/admin/vendors/{vendor_id}/keys/{key_id}/reactivate': {
        post: {
          summary: 'Put a quarantined key back in service',
          parameters: [id('vendor_id'), id('key_id')],
          responses: {
            200: ok('the active key', VendorKeySchema),
            404: err('no such key'),
            409: err('the key is revoked'),
            ...admin,
          },
        },
      },
      '/v1/admin/vendors/{vendor_id}/endpoints': {
        post: {
          summary: 'Add an endpoint of the vendor serving some model categories',
          parameters: [id('vendor_id')],
          requestBody: body(CreateEndpointSchema),
          responses: {
            201: ok('the endpoint', EndpointSchema),
            400: err('invalid body'),
            404: err('no such vendor'),
            409: err('the vendor has this URL already'),
            ...admin,
          },
        },
        get: {
          summary: "List the vendor's endpoints",
          parameters: [id('vendor_id')],
          responses: {
            200: ok('endpoints', z.object({ endpoints: z.array(EndpointSchema) })),
            404: err('no such vendor'),
            ...admin,
          },
        },
      },
      '/v1/admin/models': {
        post: {
          summary: 'Register a model (parser schemas must compile as JSON Schema)',
          requestBody: body(CreateModelSchema),
          responses: {
            201: ok('the model', ModelSchema),
            400: err('invalid body (a parser schema that does not compile is named by its role)'),
            404: err('no such vendor'),
            409: err('the vendor has this model name and version already'),
            ...admin,
          },
        },
        get: {
          summary: 'List models',
          parameters: [query('vendor_id', { type: 'string', format: 'uuid' })],
          responses: { 200: ok('models', z.object({ models: z.array(ModelSchema) })), ...admin },
        },
      },
      '/v1/admin/models/{model_id}': {
        get: {
          summary: 'A model',
          parameters: [id('model_id')],
          responses: { 200: ok('the model', ModelSchema), 404: err('no such model'), ...admin },
        },
        patch: {
          summary: "Change a model's parser or structured_output (null clears); applies at once",
          parameters: [id('model_id')],
          requestBody: body(PatchModelSchema),
          responses: {
            200: ok('the model', ModelSchema),
            400: err('invalid body'),
            404: err('no such model'),
            ...admin,
          },
        },
      },
      '/v1/admin/usage': {
        get: {
          summary: 'Metered model calls, oldest first, a page at a time',
          parameters: [
            query('run_id', { type: 'string', format: 'uuid' }),
            query('tenant_id', { type: 'string', format: 'uuid' }),
            query('business_id', { type: 'string', maxLength: 200 }),
            query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
            query('cursor', { type: 'string' }, 'next_cursor of the previous page'),
          ],
          responses: {
            200: ok('usage rows', UsagePageSchema),
            400: err('invalid filter or cursor'),
            404: err('no such run or tenant'),
            ...admin,
          },
        },
      },
      '/v1/agents': {
        post: {
          summary: 'Create an agent (publishes version 1)',
          requestBody: body(CreateAgentSchema),
          responses: {
            201: ok('the agent, its configuration and version 1', CreatedAgentSchema),
            400: err('invalid'),
            ...common,
          },
        },
        get: {
          summary: "The tenant's agents",
          responses: { 200: ok('agents', z.object({ agents: z.array(AgentViewSchema) })), ...common },
        },
      },
      '/v1/agents/{agent_id}': {
        get: {
          summary: 'An agent (draft and latest version)',
          parameters: [id('agent_id')],
          responses: { 200: ok('the agent', AgentViewSchema), ...common },
        },
        patch: {
          summary: "Edit the agent's draft",
          parameters: [id('agent_id')],
          requestBody: body(PatchAgentSchema),
          responses: { 200: ok('the agent', AgentViewSchema), ...common },
        },
        delete: {
          summary: 'Delete an agent',
          parameters: [id('agent_id')],
          responses: { 200: ok('deleted', DeletedAgentSchema), ...common },
        },
      },
      '/v1/agents/{agent_id}/versions': {
        post: {
          summary: 'Publish the draft as a new version',
          parameters: [id('agent_id')],
          responses: { 201: ok('the version', AgentVersionSchema), ...common },
        },
        get: {
          summary: 'Published versions, oldest first',
          parameters: [id('agent_id')],
          responses: { 200: ok('versions', AgentVersionListSchema), ...common },
        },
      },
      '/v1/tools': {
        get: {
          summary:
            "The tools the planner can offer the caller's runs (the node registry; a tenant's MCP tools to that tenant only)",
          responses: { 200: ok('tools', ToolListSchema), ...common },
        },
      },
      '/v1/mcp-servers': {
        post: {
          summary:
            "Connect an MCP server: its tools become nodes mcp.<name>.<tool> for this tenant's runs. " +
            'stdio commands must be allowed by SWITCHYARD_MCP_STDIO_ALLOW; env and headers are write-only',
          requestBody: body(CreateMcpServerSchema),
          responses: {
            201: ok('the server', McpServerSchema),
            400: err('invalid body, a stdio command not allowed, or a refused URL'),
            409: err('the name is taken'),
            ...common,
          },
        },
        get: {
          summary: "The tenant's MCP servers",
          responses: { 200: ok('servers', z.object({ servers: z.array(McpServerSchema) })), ...common },
        },
      },
      '/v1/mcp-servers/{id}': {
        get: {
          summary: 'An MCP server and the nodes registered for its tools',
          parameters: [id('id')],
          responses: { 200: ok('the server', McpServerSchema), ...common },
        },
        delete: {
          summary: 'Remove an MCP server: the tool-executor disconnects and deregisters its tools',
          parameters: [id('id')],
          responses: { 200: ok('deleted', McpServerSchema.extend({ deleted: z.literal(true) })), ...common },
        },
      },
      '/v1/data-sources': {
        post: {
          summary:
            'Add a Postgres data source for the sql_query tool. The dsn is write-only (stored sealed, never returned); ' +
            'private hosts are usable only when the operator lists them in SWITCHYARD_SQL_ALLOW_HOSTS',
          requestBody: body(CreateDataSourceSchema),
          responses: {
            201: ok('the data source, without its dsn', DataSourceSchema),
            400: err('invalid body or dsn'),
            409: err('the name is taken'),
            ...common,
          },
        },
        get: {
          summary: "The tenant's data sources",
          responses: {
            200: ok('data sources', z.object({ data_sources: z.array(DataSourceSchema) })),
            ...common,
          },
        },
      },
      '/v1/data-sources/{id}': {
        delete: {
          summary: 'Remove a data source',
          parameters: [id('id')],
          responses: { 200: ok('deleted', DataSourceSchema.extend({ deleted: z.literal(true) })), ...common },
        },
      },
      '/v1/runs/{run_id}/tool-outputs/{ref}': {
        get: {
          summary:
            "The full output of a tool result that was truncated in its action (the result's reference, tool-output:<id>)",
          parameters: [id('run_id'), { name: 'ref', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('the full output', ToolOutputSchema), ...common },
        },
      },
      '/v1/files': {
        post: {
          summary: "Upload a file for the tenant's graph runs (one file, at most 20 MiB)",
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: { file: { type: 'string', format: 'binary' } },
                },
              },
            },
          },
          responses: {
            201: ok('the stored file', StoredFileSchema),
            400: err('no file in the field "file"'),
            413: err('a file larger than 20 MiB'),
            ...common,
          },
        },
        get: {
          summary: "The tenant's files, newest first (with run_id: the files that run's components made)",
          parameters: [
            { name: 'run_id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' } },
            {
              name: 'limit',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1, maximum: 200 },
            },
          ],
          responses: { 200: ok('the files', z.object({ files: z.array(StoredFileSchema) })), ...common },
        },
      },
      '/v1/files/{id}': {
        get: {
          summary: "A file's metadata",
          parameters: [id('id')],
          responses: { 200: ok('the file', StoredFileSchema), ...common },
        },
        delete: {
          summary: 'Delete a file',
          parameters: [id('id')],
          responses: { 204: { description: 'deleted' }, ...common },
        },
      },
      '/v1/files/{id}/content': {
        get: {
          summary: "A file's bytes, as an attachment with its stored type",
          parameters: [id('id')],
          responses: {
            200: {
              description: 'the bytes',
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
            ...common,
          },
        },
      },
      '/v1/collections': {
        post: {
          summary: 'Create a knowledge collection (a vector-collection block) with its index sets',
          requestBody: body(CreateCollectionSchema),
          responses: { 201: ok('the collection', CollectionSchema), 400: err('invalid body'), ...common },
        },
        get: {
          summary: "The tenant's collections, each with its number of documents",
          responses: { 200: ok('{collections: [collection & {documents}]}'), ...common },
        },
      },
      '/v1/collections/{id}': {
        get: {
          summary: 'A collection and the status of its index sets',
          parameters: [id('id')],
          responses: { 200: ok('the collection', CollectionSchema), ...common },
        },
        delete: {
          summary: 'Delete a collection with its index sets, documents and chunks',
          parameters: [id('id')],
          responses: { 200: ok('{deleted: true, id}'), ...common },
        },
      },
      '/v1/collections/{id}/documents/{document_id}': {
        delete: {
          summary: 'Delete a document and its chunks (search no longer finds it)',
          parameters: [id('id'), id('document_id')],
          responses: { 200: ok('{deleted: true, id}'), ...common },
        },
      },
      '/v1/collections/{id}/documents': {
        get: {
          summary: "A collection's documents (text, metadata, chunks), oldest first",
          parameters: [id('id')],
          responses: { 200: ok('{documents: [{id, text, metadata, created_at, chunks}]}'), ...common },
        },
        post: {
          summary: 'Add documents: chunked, embedded and indexed into every index set',
          parameters: [id('id')],
          requestBody: {
            required: true,
            content: {
              ...body(IngestDocumentsSchema).content,
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['files'],
                  properties: {
                    files: {
                      type: 'array',
                      items: { type: 'string', format: 'binary' },
                      description: 'txt, md, csv, json or pdf; at most 20 files of 20 MiB',
                    },
                    metadata: { type: 'string', description: "a JSON object added to every file's metadata" },
                  },
                },
              },
            },
          },
          responses: {
            202: ok('ingested', IngestedSchema),
            400: err('invalid body, or a file that does not parse'),
            413: err('a file too large'),
            415: err('a file of a type that cannot be ingested'),
            ...common,
          },
        },
      },
      '/v1/collections/{id}/reindex': {
        post: {
          summary: "Index the collection's stored documents again (every index set, or the one named)",
          parameters: [id('id')],
          requestBody: body(ReindexSchema),
          responses: {
            202: ok("the index sets' statuses"),
            400: err('unknown index set (details name index_name)'),
            ...common,
          },
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
      '/v1/webhooks/secret': {
        get: {
          summary:
            'The tenant\'s webhook signing secret (made on first read): X-Switchyard-Signature is HMAC-SHA256 of "<t>.<body>" with it',
          responses: { 200: ok('`{secret, header}`', WebhookSecretSchema), ...common },
        },
      },
      '/v1/webhooks/secret/rotate': {
        post: {
          summary: 'A new webhook signing secret (the old one stops signing at once)',
          responses: { 200: ok('`{secret, header}`', WebhookSecretSchema), ...common },
        },
      },
      '/mcp': {
        post: {
          summary:
            "The tenant's agents as an MCP server (Streamable HTTP, stateless): JSON-RPC tools/list, tools/call",
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: {
            200: {
              description: 'the JSON-RPC answer, or its progress and answer as text/event-stream',
              content: {
                'application/json': { schema: { type: 'object' } },
                'text/event-stream': { schema: { type: 'string' } },
              },
            },
            401: common[401],
          },
        },
        get: { summary: 'No server-initiated stream (stateless)', responses: { 405: ok('POST only') } },
        delete: { summary: 'No session to end (stateless)', responses: { 405: ok('POST only') } },
      },
      '/a2a/{agent}': {
        post: {
          summary:
            "An agent as an A2A server: JSON-RPC (A2A 1.0; 0.3's message/send, tasks/get, … too). Tasks are runs, contexts threads",
          parameters: [{ name: 'agent', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: {
            200: {
              description: 'the JSON-RPC answer, or the task as text/event-stream for a streaming method',
              content: {
                'application/json': { schema: { type: 'object' } },
                'text/event-stream': { schema: { type: 'string' } },
              },
            },
            401: common[401],
            404: err('no such agent'),
          },
        },
        get: { summary: 'JSON-RPC takes POST', responses: { 405: ok('POST only') } },
        delete: { summary: 'JSON-RPC takes POST', responses: { 405: ok('POST only') } },
      },
      '/a2a/{agent}/.well-known/agent-card.json': {
        get: {
          summary: "The agent's A2A card (1.0, or 0.3 for A2A-Version 0.3 or none)",
          parameters: [{ name: 'agent', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('the agent card'), 401: common[401], 404: err('no such agent') },
        },
      },
      '/api/v1/agents': {
        get: {
          summary:
            "RAGFlow's agent API: the tenant's agents as RAGFlow lists canvases (page, page_size, orderby, desc, id, title). Answers {code, message, data}",
          responses: {
            200: ok('{code: 0, data: [agent]}, or {code, message} for an error (HTTP 200, as RAGFlow)'),
          },
        },
      },
      '/api/v1/agents/chat/completions': {
        post: {
          summary:
            "RAGFlow's agent completion: {agent_id, query, stream, session_id?, inputs?, user_id?, return_trace?} (RAGFlow's events, then [DONE]), or openai-compatible: true with messages",
          requestBody: body(CompletionSchema),
          responses: { 200: ok("the answer in RAGFlow's envelope, or its event stream") },
        },
      },
      '/api/v1/agents/{agent_id}/completions': {
        post: {
          summary: 'The same, the agent in the path (RAGFlow keeps it, deprecated)',
          parameters: [{ name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: body(CompletionSchema),
          responses: { 200: ok("the answer in RAGFlow's envelope, or its event stream") },
        },
      },
      '/api/v1/agents/{agent_id}/sessions': {
        post: {
          summary: 'A new session (a thread of the agent); the body: name?, user_id?, Begin inputs',
          parameters: [{ name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('{code: 0, data: session}') },
        },
        get: {
          summary:
            "The agent's sessions with their messages (page, page_size, orderby, desc, id, user_id, dsl)",
          parameters: [{ name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('{code: 0, data: [session], total}') },
        },
        delete: {
          summary: "Delete the agent's sessions: {ids} or {delete_all: true}",
          parameters: [{ name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('{code: 0}, or what could not be deleted') },
        },
      },
      '/api/v1/agents/{agent_id}/sessions/{session_id}': {
        get: {
          summary: 'One session',
          parameters: [
            { name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'session_id', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: { 200: ok('{code: 0, data: session}') },
        },
        delete: {
          summary: 'Delete one session',
          parameters: [
            { name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'session_id', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: { 200: ok('{code: 0, data: true}') },
        },
      },
      '/api/v1/tasks/{task_id}/cancel': {
        post: {
          summary: "RAGFlow's task cancel: a completion's task_id is its run, which is cancelled",
          parameters: [{ name: 'task_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok("{code: 0, data: true}, or {code: 102} for a task that is not the tenant's") },
        },
      },
      '/api/v1/tasks/{task_id}': {
        patch: {
          summary: 'The same, as {action: "stop"}',
          parameters: [{ name: 'task_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: ok('{code: 0, data: true}') },
        },
      },
      ...langGraphPaths(),
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
