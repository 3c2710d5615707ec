import { z } from 'zod';
import {
  AssistantCountSchema,
  AssistantCreateSchema,
  AssistantLatestSchema,
  AssistantSearchSchema,
  AssistantUpdateSchema,
  AssistantVersionsSchema,
  CancelManySchema,
  CronCreateSchema,
  CronSearchSchema,
  CronUpdateSchema,
  HistorySchema,
  RunBatchSchema,
  RunCreateSchema,
  StoreDeleteSchema,
  StoreNamespacesSchema,
  StorePutSchema,
  StoreSearchSchema,
  ThreadCountSchema,
  ThreadCreateSchema,
  ThreadPruneSchema,
  ThreadSearchSchema,
  ThreadUpdateSchema,
  UpdateStateSchema,
} from '../langgraph/langgraph.schemas';
import { body, common, err, ok, query } from './openapi-parts';

// The LangGraph Platform routes (`@langchain/langgraph-sdk`'s `Client`), at the gateway's root.
// Request bodies are the schemas the adapter validates with; the answers are LangGraph's shapes
// (docs/api.md, "LangGraph SDK", says what each holds and how it maps to runs and threads).

const TAG = ['LangGraph'];
const path = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const A = path('assistant_id');
const T = path('thread_id');
const R = path('run_id');
const C = path('cron_id');

const Assistant = z.object({
  assistant_id: z.string(),
  graph_id: z.string(),
  config: z.record(z.string(), z.unknown()),
  context: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
  version: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const Thread = z
  .object({
    thread_id: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    status: z.enum(['idle', 'busy', 'interrupted', 'error']),
    values: z.record(z.string(), z.unknown()).nullable(),
    interrupts: z.record(z.string(), z.array(z.unknown())),
  })
  .describe('a LangGraph thread');
const Run = z
  .object({
    run_id: z.string(),
    thread_id: z.string(),
    assistant_id: z.string(),
    status: z.enum(['pending', 'running', 'success', 'error', 'interrupted', 'timeout']),
    metadata: z.record(z.string(), z.unknown()),
    multitask_strategy: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .describe('a LangGraph run');
const ThreadState = z
  .object({
    values: z.record(z.string(), z.unknown()),
    next: z.array(z.string()),
    tasks: z.array(z.unknown()),
    checkpoint: z.record(z.string(), z.unknown()),
    parent_checkpoint: z.record(z.string(), z.unknown()).nullable(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.string().nullable(),
  })
  .describe('a checkpoint of the thread');
const Cron = z.record(z.string(), z.unknown()).describe('{cron_id, assistant_id, thread_id, schedule, …}');
const StoreItem = z.object({
  namespace: z.array(z.string()),
  key: z.string(),
  value: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});

const sse = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: { type: 'string' } } },
});
const noContent = (description: string) => ({ description });

/** `summary` and the answers every LangGraph route shares. */
const op = (
  summary: string,
  responses: Record<string | number, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  tags: TAG,
  summary,
  ...extra,
  responses: { ...responses, ...common },
});

const runRoutes = (prefix: string, params: unknown[], threadRun: boolean) => ({
  [`${prefix}`]: {
    post: op(
      threadRun ? 'Start a run on the thread' : 'Start a stateless run (on a thread made for it)',
      { 200: ok('the run', Run), 400: err('an option not supported, named'), 409: err('thread_busy') },
      { parameters: params, requestBody: body(RunCreateSchema) },
    ),
  },
  [`${prefix}/stream`]: {
    post: op(
      'Start a run and stream its parts (values, updates, messages-tuple)',
      { 200: sse('the run’s parts until it ends or waits'), 400: err('an option not supported, named') },
      { parameters: params, requestBody: body(RunCreateSchema) },
    ),
  },
  [`${prefix}/wait`]: {
    post: op(
      'Start a run and answer its final values',
      { 200: ok('the final values (or __error__)'), 400: err('an option not supported, named') },
      { parameters: params, requestBody: body(RunCreateSchema) },
    ),
  },
  [`${prefix}/batch`]: {
    post: op(
      'Start several runs, each on its own thread',
      { 200: ok('the runs in order', z.array(Run)) },
      { parameters: params, requestBody: body(RunBatchSchema) },
    ),
  },
  [`${prefix}/cancel`]: {
    post: op(
      'Cancel the runs named, or every run of a status',
      { 204: noContent('cancelled'), 400: err('action=rollback, or neither run_ids nor status') },
      {
        parameters: [...params, query('action', { type: 'string', enum: ['interrupt', 'rollback'] })],
        requestBody: body(CancelManySchema),
      },
    ),
  },
  [`${prefix}/{run_id}`]: {
    get: op('A run', { 200: ok('the run', Run) }, { parameters: [...params, R] }),
    delete: op(
      'Delete a run (its checkpoints stay)',
      { 204: noContent('deleted'), 409: err('the run is under way') },
      { parameters: [...params, R] },
    ),
  },
  [`${prefix}/{run_id}/join`]: {
    get: op(
      'Wait for the run to end and answer its final values',
      { 200: ok('the final values (or __error__)') },
      { parameters: [...params, R] },
    ),
  },
  [`${prefix}/{run_id}/stream`]: {
    get: op(
      'Join the run’s stream (after Last-Event-ID, or from now on)',
      { 200: sse('the run’s parts') },
      {
        parameters: [
          ...params,
          R,
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
        ],
      },
    ),
  },
  [`${prefix}/{run_id}/cancel`]: {
    post: op(
      'Cancel a run',
      { 202: noContent('cancelling'), 204: noContent('cancelled (wait=1)'), 409: err('run_finished') },
      {
        parameters: [
          ...params,
          R,
          query('wait', { type: 'string', enum: ['0', '1', 'true', 'false'] }),
          query('action', { type: 'string', enum: ['interrupt', 'rollback'] }),
        ],
      },
    ),
  },
});

export function langGraphPaths(): Record<string, unknown> {
  const threadRuns = runRoutes('/threads/{thread_id}/runs', [T], true);
  const statelessRuns = runRoutes('/runs', [], false);
  return {
    '/assistants': {
      post: op(
        'Make an assistant from an agent (graph_id): its configuration with config.configurable and context over it',
        {
          200: ok('the assistant', Assistant),
          400: err('a setting that is none, or no such graph'),
          409: err('assistant_id taken'),
        },
        { requestBody: body(AssistantCreateSchema) },
      ),
    },
    '/assistants/search': {
      post: op(
        'Search assistants (agents; the built-in one is `default`)',
        { 200: ok('assistants', z.array(Assistant)) },
        { requestBody: body(AssistantSearchSchema) },
      ),
    },
    '/assistants/count': {
      post: op(
        'Count assistants',
        { 200: ok('their number', z.number().int()) },
        { requestBody: body(AssistantCountSchema) },
      ),
    },
    '/assistants/{assistant_id}': {
      get: op(
        'An assistant, by id or graph id',
        { 200: ok('the assistant', Assistant) },
        { parameters: [A] },
      ),
      patch: op(
        'A new version of the assistant, which runs use from now on',
        { 200: ok('the assistant', Assistant), 400: err('the built-in assistant, or a bad setting') },
        { parameters: [A], requestBody: body(AssistantUpdateSchema) },
      ),
      delete: op(
        'Delete the assistant (its runs stay readable); delete_threads=true deletes its threads too',
        { 204: noContent('deleted'), 409: err('a run under way in one of its threads') },
        {
          parameters: [
            A,
            { name: 'delete_threads', in: 'query', required: false, schema: { type: 'boolean' } },
          ],
        },
      ),
    },
    '/assistants/{assistant_id}/versions': {
      post: op(
        'Its published versions, newest first',
        { 200: ok('versions', z.array(Assistant)) },
        { parameters: [A], requestBody: body(AssistantVersionsSchema) },
      ),
    },
    '/assistants/{assistant_id}/latest': {
      post: op(
        'Runs use this version from now on',
        { 200: ok('the assistant', Assistant), 404: err('no such version') },
        { parameters: [A], requestBody: body(AssistantLatestSchema) },
      ),
    },
    '/assistants/{assistant_id}/graph': {
      get: op(
        "The agent's topology: __start__, its nodes (a canvas's components, a workflow's edges, the default agent's nodes), __end__, and edges (conditional where a node chooses)",
        { 200: ok('{nodes: [{id, type, data, metadata?}], edges: [{source, target, conditional?}]}') },
        { parameters: [A, query('xray', { type: 'boolean' }, 'accepted; there are no subgraphs')] },
      ),
    },
    '/assistants/{assistant_id}/schemas': {
      get: op(
        "What a run takes (messages, a canvas's Begin form) and what its thread's values hold",
        { 200: ok('{graph_id, input_schema, output_schema, state_schema, config_schema, context_schema}') },
        { parameters: [A] },
      ),
    },
    '/assistants/{assistant_id}/subgraphs': {
      get: op('No agent has subgraphs', { 200: ok('{}') }, { parameters: [A] }),
    },
    '/assistants/{assistant_id}/subgraphs/{path}': {
      get: op('No agent has subgraphs', { 200: ok('{}') }, { parameters: [A, path('path')] }),
    },
    '/threads': {
      post: op(
        'Create a thread',
        { 200: ok('the thread', Thread), 409: err('the id exists (if_exists: raise)') },
        { requestBody: body(ThreadCreateSchema) },
      ),
    },
    '/threads/search': {
      post: op(
        'Search the tenant’s threads (metadata, values, status, ids)',
        { 200: ok('threads', z.array(Thread)) },
        { requestBody: body(ThreadSearchSchema) },
      ),
    },
    '/threads/count': {
      post: op(
        'Count the threads search would find',
        { 200: ok('their number', z.number().int()) },
        { requestBody: body(ThreadCountSchema) },
      ),
    },
    '/threads/prune': {
      post: op(
        'Delete the threads named, or keep only their latest state',
        { 200: ok('{pruned_count}'), 409: err('a run under way') },
        { requestBody: body(ThreadPruneSchema) },
      ),
    },
    '/threads/{thread_id}': {
      get: op('A thread', { 200: ok('the thread', Thread) }, { parameters: [T] }),
      patch: op(
        'Merge metadata into the thread',
        { 200: ok('the thread', Thread), 400: err('ttl') },
        { parameters: [T], requestBody: body(ThreadUpdateSchema) },
      ),
      delete: op(
        'Delete the thread with its runs, events and checkpoints',
        { 204: noContent('deleted'), 409: err('a run under way') },
        { parameters: [T] },
      ),
    },
    '/threads/{thread_id}/copy': {
      post: op(
        'Copy the thread with its whole history',
        { 200: ok('the new thread', Thread) },
        { parameters: [T] },
      ),
    },
    '/threads/{thread_id}/state': {
      get: op('The thread’s latest checkpoint', { 200: ok('the state', ThreadState) }, { parameters: [T] }),
      post: op(
        'Update the state: a new checkpoint with values written (as_node: that node’s successors run next)',
        { 200: ok('{checkpoint}'), 400: err('values not written, or an as_node without fixed successors') },
        { parameters: [T], requestBody: body(UpdateStateSchema) },
      ),
      patch: op(
        'threads.patchState: not supported — a checkpoint’s metadata is what its step recorded',
        { 400: err('not supported, naming the route') },
        { parameters: [T] },
      ),
    },
    '/threads/{thread_id}/stream': {
      get: op(
        'threads.joinStream: not supported — join a run’s stream instead',
        { 400: err('not supported, naming the route') },
        { parameters: [T] },
      ),
    },
    '/threads/{thread_id}/state/{checkpoint_id}': {
      get: op(
        'A checkpoint of the thread',
        { 200: ok('the state', ThreadState) },
        { parameters: [T, path('checkpoint_id')] },
      ),
    },
    '/threads/{thread_id}/state/checkpoint': {
      post: op(
        'A checkpoint of the thread, named in the body',
        { 200: ok('the state', ThreadState) },
        { parameters: [T] },
      ),
    },
    '/threads/{thread_id}/history': {
      post: op(
        'The thread’s checkpoints, newest first, across branches',
        { 200: ok('states', z.array(ThreadState)) },
        { parameters: [T], requestBody: body(HistorySchema) },
      ),
    },
    ...threadRuns,
    '/threads/{thread_id}/runs': {
      ...threadRuns['/threads/{thread_id}/runs'],
      get: op('The thread’s runs, newest first', { 200: ok('runs', z.array(Run)) }, { parameters: [T] }),
    },
    '/threads/{thread_id}/runs/crons': {
      post: op(
        'Schedule runs on the thread',
        { 200: ok('the cron', Cron), 400: err('a bad schedule, named') },
        { parameters: [T], requestBody: body(CronCreateSchema) },
      ),
    },
    ...statelessRuns,
    '/runs': {
      ...statelessRuns['/runs'],
      get: op('The tenant’s runs, newest first', { 200: ok('runs', z.array(Run)) }),
    },
    '/runs/crons': {
      post: op(
        'Schedule stateless runs',
        { 200: ok('the cron', Cron), 400: err('a bad schedule, named') },
        { requestBody: body(CronCreateSchema) },
      ),
    },
    '/runs/crons/search': {
      post: op('Search crons', { 200: ok('crons', z.array(Cron)) }, { requestBody: body(CronSearchSchema) }),
    },
    '/runs/crons/count': {
      post: op(
        'Count crons',
        { 200: ok('their number', z.number().int()) },
        { requestBody: body(CronSearchSchema) },
      ),
    },
    '/runs/crons/{cron_id}': {
      patch: op(
        'Update a cron',
        { 200: ok('the cron', Cron) },
        { parameters: [C], requestBody: body(CronUpdateSchema) },
      ),
      delete: op('Delete a cron', { 204: noContent('deleted') }, { parameters: [C] }),
    },
    '/store/items': {
      put: op(
        'Store an item under its namespace and key',
        { 204: noContent('stored') },
        { requestBody: body(StorePutSchema) },
      ),
      get: op(
        'An item, or null',
        { 200: ok('the item', StoreItem.nullable()) },
        {
          parameters: [
            query('namespace', { type: 'string' }, 'labels joined by "."'),
            query('key', { type: 'string' }),
            query('refresh_ttl', { type: 'boolean' }),
          ],
        },
      ),
      delete: op('Delete an item', { 204: noContent('deleted') }, { requestBody: body(StoreDeleteSchema) }),
    },
    '/store/items/search': {
      post: op(
        'Items under a namespace prefix: filter, or by meaning (query)',
        { 200: ok('{items}') },
        { requestBody: body(StoreSearchSchema) },
      ),
    },
    '/store/namespaces': {
      post: op(
        'The namespaces holding items',
        { 200: ok('{namespaces}') },
        { requestBody: body(StoreNamespacesSchema) },
      ),
    },
  };
}
