import { SwitchyardNetworkError, errorOf } from './errors';
import { sseFrames } from './sse';
import type {
  Agent,
  AgentVersion,
  AgentVersionList,
  CancelledRun,
  Collection,
  CollectionSearchRequest,
  CollectionSearchResult,
  CreateAgentRequest,
  CreateCollectionRequest,
  CreateKeyRequest,
  CreateRunRequest,
  CreateTenantRequest,
  CreatedAgent,
  CreatedApiKey,
  CreatedRun,
  DeletedAgent,
  ForkRequest,
  ForkResult,
  IngestDocumentsRequest,
  Ingested,
  ListRunsQuery,
  ListThreadsQuery,
  PatchAgentRequest,
  ResetEvent,
  ResumeInput,
  ResumedRun,
  Run,
  RunAction,
  RunEvent,
  RunPage,
  StoredFile,
  Tenant,
  Thread,
  ThreadPage,
  ThreadState,
  ThreadVersion,
  ToolList,
  UsagePage,
  UsageQuery,
} from './types';

export interface SwitchyardClientOptions {
  /** The gateway's URL, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** A tenant API key (`Authorization: Bearer …`). */
  apiKey: string;
  /** Admin token, for `admin.*` calls only. */
  adminToken?: string;
  /** Attempts of an idempotent request on a transient failure (default 3). */
  maxAttempts?: number;
  /** First back-off in ms, doubled per attempt (default 200). */
  backoffMs?: number;
  fetch?: typeof fetch;
}

export interface EventsOptions {
  /** Resume after this event id (or an integer count of events already seen). */
  after?: string;
  signal?: AbortSignal;
  /** Reconnections after a dropped connection before giving up (default 10). */
  maxReconnects?: number;
}

interface RequestOptions {
  body?: unknown;
  /** Safe to send again: GET, DELETE, and POSTs made idempotent by a key. */
  idempotent: boolean;
  admin?: boolean;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });

/**
 * The typed client of Switchyard's gateway: what a business service needs to start runs, follow
 * them to the end without gaps, answer their questions, and manage agents and knowledge.
 *
 * Only idempotent requests are retried (GETs, DELETEs, run creation — made idempotent by its
 * `request_id` — and cancel); errors are {@link SwitchyardApiError} with the API's code.
 */
export class SwitchyardClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;

  constructor(private readonly opts: SwitchyardClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    this.backoffMs = opts.backoffMs ?? 200;
  }

  readonly runs = {
    /** Starts a run; sending the same `request_id` again returns the same run (made here when absent). */
    create: (body: CreateRunRequest, opts: { signal?: AbortSignal } = {}): Promise<CreatedRun> =>
      this.request<CreatedRun>('POST', '/v1/runs', {
        body: { ...body, request_id: body.request_id ?? globalThis.crypto.randomUUID() },
        idempotent: true,
        ...opts,
      }),
    get: (runId: string): Promise<Run> =>
      this.request<Run>('GET', `/v1/runs/${enc(runId)}`, { idempotent: true }),
    /** The tenant's runs, newest first; pass `cursor: next_cursor` for the next page. */
    list: (query: ListRunsQuery = {}): Promise<RunPage> =>
      this.request<RunPage>('GET', `/v1/runs${queryString(query)}`, { idempotent: true }),
    actions: async (runId: string): Promise<RunAction[]> =>
      (
        await this.request<{ actions: RunAction[] }>('GET', `/v1/runs/${enc(runId)}/actions`, {
          idempotent: true,
        })
      ).actions,
    /** Cancels a run (cancelling twice is harmless: 200 the second time). */
    cancel: (runId: string): Promise<CancelledRun> =>
      this.request<CancelledRun>('POST', `/v1/runs/${enc(runId)}/cancel`, { idempotent: true }),
    /** Answers a waiting run's question; not retried (a second answer would meet a run no longer waiting). */
    resume: (runId: string, input: ResumeInput): Promise<ResumedRun> =>
      this.request<ResumedRun>('POST', `/v1/runs/${enc(runId)}/resume`, {
        body: { input },
        idempotent: false,
      }),
    /** The run's events from the start (or `after`), live until `done`; see {@link SwitchyardClient.events}. */
    events: (runId: string, opts: EventsOptions = {}): AsyncGenerator<RunEvent | ResetEvent> =>
      this.events(runId, opts),
    /** Follows a run to its end and returns it. */
    wait: async (runId: string, opts: { signal?: AbortSignal } = {}): Promise<Run> => {
      for await (const e of this.events(runId, opts)) {
        if (e.event_type === 'done') {
          break;
        }
      }
      return this.runs.get(runId);
    },
  };

  readonly threads = {
    /** The tenant's threads, newest first; pass `cursor: next_cursor` for the next page. */
    list: (query: ListThreadsQuery = {}): Promise<ThreadPage> =>
      this.request<ThreadPage>('GET', `/v1/threads${queryString(query)}`, { idempotent: true }),
    /** Deletes the thread and what its runs wrote (409 while one of its runs is under way). */
    delete: (threadId: string): Promise<{ deleted: true; thread_id: string; runs_deleted: number }> =>
      this.request('DELETE', `/v1/threads/${enc(threadId)}`, { idempotent: true }),
    get: (threadId: string): Promise<Thread> =>
      this.request<Thread>('GET', `/v1/threads/${enc(threadId)}`, { idempotent: true }),
    runs: (threadId: string): Promise<{ runs: Run[] }> =>
      this.request('GET', `/v1/threads/${enc(threadId)}/runs`, { idempotent: true }),
    /** The thread's state, at a version when given. */
    state: (threadId: string, version?: number): Promise<ThreadState> =>
      this.request<ThreadState>(
        'GET',
        `/v1/threads/${enc(threadId)}/state${version === undefined ? '' : `?version=${version}`}`,
        { idempotent: true },
      ),
    /**
     * Branches the thread at `version` (a version that ends a step): the run re-runs what was
     * pending there, reusing the steps before it (`POST /v1/threads/:id/fork`, idempotent with a
     * `request_id`, made when absent).
     */
    fork: (threadId: string, body: ForkRequest): Promise<ForkResult> =>
      this.request<ForkResult>('POST', `/v1/threads/${enc(threadId)}/fork`, {
        body: { ...body, request_id: body.request_id ?? globalThis.crypto.randomUUID() },
        idempotent: true,
      }),
    /** The thread's versions, newest first (each with the run and node that wrote it). */
    versions: async (threadId: string, opts: { limit?: number } = {}): Promise<ThreadVersion[]> =>
      (
        await this.request<{ versions: ThreadVersion[] }>(
          'GET',
          `/v1/threads/${enc(threadId)}/versions${queryString(opts)}`,
          { idempotent: true },
        )
      ).versions,
  };

  readonly agents = {
    list: async (): Promise<Agent[]> =>
      (await this.request<{ agents: Agent[] }>('GET', '/v1/agents', { idempotent: true })).agents,
    get: (id: string): Promise<Agent> =>
      this.request<Agent>('GET', `/v1/agents/${enc(id)}`, { idempotent: true }),
    create: (body: CreateAgentRequest): Promise<CreatedAgent> =>
      this.request<CreatedAgent>('POST', '/v1/agents', { body, idempotent: false }),
    update: (id: string, body: PatchAgentRequest): Promise<Agent> =>
      this.request<Agent>('PATCH', `/v1/agents/${enc(id)}`, { body, idempotent: true }),
    delete: (id: string): Promise<DeletedAgent> =>
      this.request<DeletedAgent>('DELETE', `/v1/agents/${enc(id)}`, { idempotent: true }),
    publish: (id: string): Promise<AgentVersion> =>
      this.request<AgentVersion>('POST', `/v1/agents/${enc(id)}/versions`, { idempotent: false }),
    /** The published versions, oldest first. */
    versions: (id: string): Promise<AgentVersionList> =>
      this.request<AgentVersionList>('GET', `/v1/agents/${enc(id)}/versions`, { idempotent: true }),
  };

  readonly collections = {
    create: (body: CreateCollectionRequest): Promise<Collection> =>
      this.request<Collection>('POST', '/v1/collections', { body, idempotent: false }),
    get: (id: string): Promise<Collection> =>
      this.request<Collection>('GET', `/v1/collections/${enc(id)}`, { idempotent: true }),
    /** Chunks, embeds and indexes the documents into every index set (answered once they are done). */
    addDocuments: (id: string, body: IngestDocumentsRequest): Promise<Ingested> =>
      this.request<Ingested>('POST', `/v1/collections/${enc(id)}/documents`, { body, idempotent: false }),
    search: (id: string, body: CollectionSearchRequest): Promise<CollectionSearchResult> =>
      this.request<CollectionSearchResult>('POST', `/v1/collections/${enc(id)}/search`, {
        body,
        idempotent: true,
      }),
  };

  /** The tenant's files: uploads a run reads (`input.files[].file_id`, a graph run's Begin form), files runs made. */
  readonly files = {
    /** Uploads a file (≤ 20 MiB); not retried (each upload is a new file). */
    upload: (content: Blob, name: string): Promise<StoredFile> => {
      const form = new FormData();
      form.append('file', content, name);
      return this.request<StoredFile>('POST', '/v1/files', { body: form, idempotent: false });
    },
    get: (id: string): Promise<StoredFile> =>
      this.request<StoredFile>('GET', `/v1/files/${enc(id)}`, { idempotent: true }),
    /** Deletes the file (the gateway answers 204, no body). */
    delete: (id: string): Promise<void> =>
      this.request<void>('DELETE', `/v1/files/${enc(id)}`, { idempotent: true }),
  };

  readonly tools = {
    /** What the planner can offer the caller's runs (the shared tools and the tenant's MCP tools). */
    list: (): Promise<ToolList> => this.request<ToolList>('GET', '/v1/tools', { idempotent: true }),
  };

  readonly admin = {
    createTenant: (body: CreateTenantRequest): Promise<Tenant> =>
      this.request<Tenant>('POST', '/v1/admin/tenants', { body, idempotent: false, admin: true }),
    /** Makes an API key of the tenant: `key` is shown in this answer only. */
    createKey: (tenantId: string, body: CreateKeyRequest = {}): Promise<CreatedApiKey> =>
      this.request<CreatedApiKey>('POST', `/v1/admin/tenants/${enc(tenantId)}/keys`, {
        body,
        idempotent: false,
        admin: true,
      }),
    /** Metered model calls, oldest first; pass `cursor: next_cursor` for the next page. */
    usage: (query: UsageQuery = {}): Promise<UsagePage> =>
      this.request<UsagePage>('GET', `/v1/admin/usage${queryString(query)}`, {
        idempotent: true,
        admin: true,
      }),
  };

  /**
   * A run's events, from the start or after `after`, live until `done`. A dropped connection is
   * picked up again with `Last-Event-ID` = the last event yielded, so the caller sees every event
   * once, in order, with no gap and no repeat — also across the gateway's `close` (a stream's
   * lifetime, a gateway shutting down), which is not yielded; a `reset` event (the gateway lost part of the
   * history and replays it from Postgres) is passed on as it comes.
   */
  async *events(runId: string, opts: EventsOptions = {}): AsyncGenerator<RunEvent | ResetEvent> {
    let cursor = opts.after;
    let reconnects = 0;
    const maxReconnects = opts.maxReconnects ?? 10;
    for (;;) {
      let res: Response;
      try {
        res = await this.fetch(`${this.baseUrl}/v1/runs/${enc(runId)}/events`, {
          headers: {
            Accept: 'text/event-stream',
            Authorization: `Bearer ${this.opts.apiKey}`,
            ...(cursor ? { 'Last-Event-ID': cursor } : {}),
          },
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        if (opts.signal?.aborted || reconnects >= maxReconnects) {
          throw new SwitchyardNetworkError(`the events of run ${runId} could not be read`, err);
        }
        await sleep(this.backoff(reconnects++), opts.signal);
        continue;
      }
      if (!res.ok || !res.body) {
        const error = await errorOf(res);
        if (error.transient && reconnects < maxReconnects) {
          await sleep(this.backoff(reconnects++), opts.signal);
          continue;
        }
        throw error;
      }
      try {
        for await (const frame of sseFrames(res.body as unknown as AsyncIterable<Uint8Array>)) {
          if (frame.event === 'close') {
            // The gateway ends the stream early (its lifetime, a shutdown): pick it up again.
            break;
          }
          const event = JSON.parse(frame.data) as RunEvent | ResetEvent;
          if (frame.id) {
            cursor = frame.id;
          }
          reconnects = 0;
          yield event;
          if (event.event_type === 'done') {
            return;
          }
        }
      } catch (err) {
        if (opts.signal?.aborted) {
          throw err;
        }
        if (reconnects >= maxReconnects) {
          throw new SwitchyardNetworkError(`the events of run ${runId} broke off ${reconnects} times`, err);
        }
      }
      // The stream ended (or broke) before `done`: pick it up where it stopped.
      await sleep(this.backoff(reconnects++), opts.signal);
    }
  }

  private backoff(attempt: number): number {
    return Math.min(this.backoffMs * 2 ** attempt, 5_000);
  }

  private async request<T>(method: string, path: string, opts: RequestOptions): Promise<T> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      Authorization: `Bearer ${opts.admin ? (this.opts.adminToken ?? '') : this.opts.apiKey}`,
    };
    const form = opts.body instanceof FormData;
    if (opts.body !== undefined && !form) {
      headers['Content-Type'] = 'application/json';
    }
    const attempts = opts.idempotent ? this.maxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          // A form sets its own multipart Content-Type (with the boundary).
          ...(opts.body !== undefined
            ? { body: form ? (opts.body as FormData) : JSON.stringify(opts.body) }
            : {}),
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        if (attempt >= attempts || opts.signal?.aborted) {
          throw new SwitchyardNetworkError(`${method} ${path} failed: ${(err as Error).message}`, err);
        }
        await sleep(this.backoff(attempt - 1), opts.signal);
        continue;
      }
      if (res.ok) {
        const text = await res.text();
        return (text ? JSON.parse(text) : undefined) as T;
      }
      const error = await errorOf(res);
      if (!error.transient || attempt >= attempts) {
        throw error;
      }
      const retryAfter = Number(res.headers.get('retry-after'));
      await sleep(retryAfter > 0 ? retryAfter * 1000 : this.backoff(attempt - 1), opts.signal);
    }
  }
}

const queryString = (q: object): string => {
  const entries = Object.entries(q).filter(([, v]) => v !== undefined && v !== '');
  return entries.length
    ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`
    : '';
};

const enc = encodeURIComponent;
