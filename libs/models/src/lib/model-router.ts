import { Logger } from '@nestjs/common';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { LRUCache } from 'lru-cache';
import { v7 as timeOrderedUuid } from 'uuid';
import type { StructuredOutputMode } from '@switchyard/config';
import type { MeteredCall, Usage } from '@switchyard/contracts';
import { buildClient } from './client-factory';
import { KeyPool } from './key-pool';
import { type LlmCallContext, addCollectedUsage } from './llm-call-context';
import {
  LlmCallException,
  classifyLlmError,
  httpStatusOf,
  redactSecrets,
  retryAfterMsOf,
} from './llm-errors';
import type { ModelsConfig } from './models.config';
import type {
  ParserSpec,
  RegistryKey,
  RegistryModel,
  RegistrySnapshot,
  RegistryStore,
  RegistryVendor,
  VendorKind,
} from './registry.store';
import { ENV_VENDOR } from './registry.store';
import type { RunScopes } from './run-scope';
import { countUsage, llmCalls, llmFailovers } from './llm.metrics';
import { type Span, SpanKind, SpanStatusCode, recording, tracer } from '@switchyard/telemetry';
import { type UsageMeter, costOf } from './usage-meter';

const DEFAULT_STRUCTURED_OUTPUT: Record<VendorKind, StructuredOutputMode> = {
  openai: 'json_schema',
  anthropic: 'tool_call',
  ollama: 'json_schema',
};

// Categories a chat client can serve.
const CHAT_CATEGORIES = new Set(['text', 'reasoning', 'multimodal']);
// A key that failed with 5xx or a network error rests this long (capped by the configured cooldown).
const FAILURE_REST_MS = 2_000;

/** The model serving one call, with the keys that may pay for it. */
export interface CallTarget {
  role?: string;
  model: RegistryModel;
  vendor: RegistryVendor;
  baseUrl?: string;
  /** Active keys of the vendor this tenant may use (its own and the shared ones). */
  keys: RegistryKey[];
  tenantId?: string;
  businessId?: string;
  ctx?: LlmCallContext;
}

/** One try of a call with one key (null: a keyless Ollama server). */
export interface Lease {
  key: RegistryKey | null;
  client: BaseChatModel;
  /** The try's span, when tracing is on (ended by succeeded/failed). */
  span?: Span;
}

/**
 * Auxiliary calls an agent need not pin (the thread's title): without a pin of their own they use
 * the model of the node they serve — the title the output's (its pin, else the default the output
 * uses too) — never a model the agent did not choose for that work.
 */
const FOLLOWS: Readonly<Record<string, readonly string[]>> = {
  title: ['output'],
};

function followedPin(
  models: Record<string, string | undefined> | undefined,
  role: string,
): string | undefined {
  return FOLLOWS[role]?.map((r) => models?.[r]).find((m): m is string => typeof m === 'string');
}

/**
 * Finds the model for a role (the run's pinned agent model, else the env-seeded default) and runs
 * a call over its keys: tenant key first, else round-robin over the shared ones; 429 rests the key
 * until Retry-After and tries the next; 401/403 quarantines it; 5xx/network tries the next. Keys
 * are opened only to build clients and appear in logs by fingerprint only.
 */
export class ModelRouter {
  private readonly logger = new Logger('ModelRouter');
  // Vendor clients (chat and embeddings) by model, key and URL; a failed build is forgotten.
  private readonly clients = new LRUCache<string, Promise<unknown>>({ max: 500 });
  readonly pool = new KeyPool();

  constructor(
    readonly store: RegistryStore,
    private readonly meter: UsageMeter,
    private readonly scopes: RunScopes,
    private readonly cfg: ModelsConfig,
  ) {}

  get defaultModelName(): string {
    return this.cfg.llm.SWITCHYARD_LLM_MODEL;
  }

  /**
   * The model of a call: `preferred` (a model a workflow names itself, e.g. a PuppyEngine edge's
   * `model`) when the registry has a chat model of that name or id; else the run's agent pin for
   * the role, else the default. A preferred name the registry lacks is not read again from the
   * tables (it would be, on every call, for a template naming a vendor model nobody registered).
   */
  async resolve(
    role: string | undefined,
    ctx: LlmCallContext | undefined,
    preferred?: string,
  ): Promise<CallTarget> {
    const scope = ctx?.run_id ? await this.scopes.forRun(ctx.run_id, ctx.tenant_id) : undefined;
    const tenantId = ctx?.tenant_id ?? scope?.tenant_id;
    const businessId = ctx?.business_id ?? scope?.business_id;
    let snap = await this.store.get();
    const named = preferred ? findModel(snap, preferred) : undefined;
    if (named && CHAT_CATEGORIES.has(named.category)) {
      return targetOf(snap, named, role, { tenantId, businessId }, ctx);
    }
    const ref = role ? (scope?.models[role] ?? followedPin(scope?.models, role)) : undefined;
    let model = ref ? findModel(snap, ref) : this.defaultModel(snap);
    if (!model) {
      // Not in this copy: read the tables once more, so only a row that does not exist fails.
      snap = await this.store.reload();
      model = ref ? findModel(snap, ref) : this.defaultModel(snap);
    }
    if (!model) {
      throw new LlmCallException(
        ref
          ? `the agent pins model "${ref}" for role "${role}", but the model registry has no such model`
          : `the model registry has no default model "${this.defaultModelName}" (SWITCHYARD_LLM_MODEL)`,
        'model_not_found',
        false,
      );
    }
    if (!CHAT_CATEGORIES.has(model.category)) {
      throw new LlmCallException(
        `model "${model.name}" is a ${model.category} model and cannot chat (role "${role ?? '-'}")`,
        'model_not_chat',
        false,
      );
    }
    return targetOf(snap, model, role, { tenantId, businessId }, ctx);
  }

  /**
   * The registry's embedding model of this name (category `embedding`), with the keys the tenant
   * may use; undefined when the registry has none of that name.
   */
  async resolveEmbedding(
    name: string,
    tenantId: string | undefined,
    ctx?: LlmCallContext,
  ): Promise<CallTarget | undefined> {
    const snap = await this.store.get();
    const model = snap.models.find((m) => m.category === 'embedding' && (m.name === name || m.id === name));
    return model
      ? targetOf(snap, model, 'embedding', { tenantId, businessId: ctx?.business_id }, ctx)
      : undefined;
  }

  /** The reply parser the registry sets for this model and role (`*` = every role). */
  parserFor(target: CallTarget): ParserSpec | undefined {
    const p = target.model.parser;
    return (target.role ? p?.[target.role] : undefined) ?? p?.['*'] ?? undefined;
  }

  /**
   * How this model returns structured replies: what the registry declares, else its vendor kind's
   * default (OpenAI-compatible and Ollama: a JSON Schema response format; Anthropic: a forced tool).
   */
  structuredOutputOf(target: CallTarget): StructuredOutputMode {
    return target.model.structured_output ?? DEFAULT_STRUCTURED_OUTPUT[target.vendor.kind];
  }

  /** Starts a call: checks the tenant's budget, then hands out keys one failure at a time. */
  async begin(target: CallTarget, temperature: number, signal?: AbortSignal): Promise<KeyFailover> {
    if (target.tenantId) {
      await this.meter.checkBudget(target.tenantId, target.ctx?.calls?.unwrittenTokens(target.tenantId));
    }
    return new KeyFailover(this, target, temperature, signal);
  }

  async record(target: CallTarget, key: RegistryKey | null, usage: Usage): Promise<void> {
    addCollectedUsage(usage);
    countUsage(
      target.model.name,
      usage,
      costOf(usage, target.model.price_per_1k_input, target.model.price_per_1k_output),
    );
    if (!target.tenantId) {
      // Outside a run and without a tenant there is nobody to bill (e.g. a unit test).
      return;
    }
    const ctx = target.ctx;
    const call: MeteredCall = {
      // Time-ordered (UUIDv7, monotonic within the process): the writes insert calls in call_id
      // order, so a task's rows get their model_usage ids in the order its calls were made.
      call_id: timeOrderedUuid(),
      tenant_id: target.tenantId,
      business_id: target.businessId ?? null,
      run_id: ctx?.run_id ?? null,
      task_id: ctx?.task_id ?? null,
      node: ctx?.node ?? null,
      attempt: ctx?.attempt ?? null,
      model_id: target.model.id,
      key_id: key?.id ?? null,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
      cost: costOf(usage, target.model.price_per_1k_input, target.model.price_per_1k_output),
    };
    // A task's call goes with its delta (TaskCalls); any other waits for its own write.
    await (ctx?.calls ? ctx.calls.add(call, this.meter) : this.meter.record(call));
  }

  client(target: CallTarget, key: RegistryKey | null, temperature: number): Promise<BaseChatModel> {
    return this.cachedClient(target, key, `chat|${temperature}`, () =>
      buildClient({
        kind: target.vendor.kind,
        model: target.model.name,
        baseUrl: target.baseUrl,
        apiKey: key ? this.store.openSecret(key) : undefined,
        temperature,
        timeoutMs: this.cfg.llm.SWITCHYARD_LLM_TIMEOUT_MS,
      }),
    );
  }

  /** A client for this model, key and URL (`variant` tells kinds of client apart), built once. */
  cachedClient<T>(
    target: CallTarget,
    key: RegistryKey | null,
    variant: string,
    build: () => Promise<T>,
  ): Promise<T> {
    const id = [
      target.model.id,
      key?.id ?? '-',
      key?.fingerprint ?? '-',
      target.baseUrl ?? '-',
      variant,
    ].join('|');
    let client = this.clients.get(id) as Promise<T> | undefined;
    if (!client) {
      client = build();
      client.catch(() => this.clients.delete(id));
      this.clients.set(id, client);
    }
    return client;
  }

  secretOf(key: RegistryKey | null): string[] {
    try {
      return key ? [this.store.openSecret(key)] : [];
    } catch {
      return [];
    }
  }

  get timeoutMs(): number {
    return this.cfg.llm.SWITCHYARD_LLM_TIMEOUT_MS;
  }

  get cooldownMs(): number {
    return this.cfg.registry.SWITCHYARD_LLM_COOLDOWN_MS;
  }

  get maxWaitMs(): number {
    return this.cfg.registry.SWITCHYARD_LLM_MAX_WAIT_MS;
  }

  warn(target: CallTarget, key: RegistryKey | null, msg: string): void {
    this.logger.warn({
      run_id: target.ctx?.run_id,
      task_id: target.ctx?.task_id,
      model: target.model.name,
      key: key?.fingerprint,
      key_label: key?.label,
      msg,
    });
  }

  private defaultModel(snap: RegistrySnapshot): RegistryModel | undefined {
    const name = this.defaultModelName;
    const vendor = [...snap.vendors.values()].find((v) => v.name === ENV_VENDOR);
    return (
      snap.models.find((m) => m.vendor_id === vendor?.id && m.name === name) ??
      snap.models.find((m) => m.name === name)
    );
  }
}

function targetOf(
  snap: RegistrySnapshot,
  model: RegistryModel,
  role: string | undefined,
  who: { tenantId?: string; businessId?: string },
  ctx: LlmCallContext | undefined,
): CallTarget {
  const { tenantId, businessId } = who;
  const vendor = snap.vendors.get(model.vendor_id);
  if (!vendor) {
    throw new LlmCallException(`model "${model.name}" has no vendor`, 'model_not_found', false);
  }
  const endpoint = snap.endpoints.find(
    (e) => e.vendor_id === vendor.id && e.categories.includes(model.category),
  );
  const keys = snap.keys.filter(
    (k) =>
      k.vendor_id === vendor.id &&
      k.status === 'active' &&
      (k.tenant_id === null || k.tenant_id === tenantId) &&
      (k.business_id === null || k.business_id === businessId),
  );
  return {
    role,
    model,
    vendor,
    baseUrl: endpoint?.url ?? vendor.base_url ?? undefined,
    keys,
    tenantId,
    businessId,
    ctx,
  };
}

function findModel(snap: RegistrySnapshot, ref: string): RegistryModel | undefined {
  return snap.models.find((m) => m.id === ref) ?? snap.models.find((m) => m.name === ref);
}

/** The keys of one call, handed out one at a time as the previous one fails. */
export class KeyFailover {
  private readonly excluded = new Set<string>();
  private waitedMs = 0;
  private lastError?: LlmCallException;
  private keylessTried = false;
  private handedOut = 0;

  constructor(
    private readonly router: ModelRouter,
    readonly target: CallTarget,
    private readonly temperature: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** The next chat client to try, with its key; throws a clear error when none is left. */
  async next(): Promise<Lease> {
    const key = await this.nextKey();
    const client = await this.router.client(this.target, key, this.temperature);
    if (!recording()) {
      return { key, client };
    }
    // One span per try (a failover to the next key is a second span of the same node task).
    const span = tracer().startSpan(`llm ${this.target.model.name}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.system': this.target.vendor.kind,
        'gen_ai.request.model': this.target.model.name,
        model: this.target.model.name,
        vendor: this.target.vendor.name,
        'llm.try': this.handedOut,
        ...(key ? { 'llm.key_fingerprint': key.fingerprint } : {}),
      },
    });
    return { key, client, span };
  }

  /** The next key to try (null: a keyless Ollama server); throws a clear error when none is left. */
  async nextKey(): Promise<RegistryKey | null> {
    const { target } = this;
    if (this.handedOut++ > 0) {
      // A failover: the registry may have changed since the call began (a key revoked meanwhile).
      const active = new Set((await this.router.store.get()).keys.map((k) => k.id));
      for (const key of target.keys) {
        if (!active.has(key.id)) {
          this.excluded.add(key.id);
        }
      }
    }
    if (target.keys.length === 0 && target.vendor.kind === 'ollama' && !this.keylessTried) {
      this.keylessTried = true;
      return null;
    }
    for (;;) {
      const candidates = this.router.pool
        .order(target.vendor.id, target.keys, target.tenantId, target.businessId)
        .filter((k) => k.status === 'active' && !this.excluded.has(k.id));
      const ready = candidates.find((k) => this.router.pool.restingFor(k.id) === 0);
      if (ready) {
        return ready;
      }
      if (candidates.length === 0) {
        throw this.exhausted();
      }
      const wait = Math.min(...candidates.map((k) => this.router.pool.restingFor(k.id)));
      if (this.waitedMs + wait > this.router.maxWaitMs) {
        throw this.exhausted();
      }
      await sleep(wait, this.signal);
      if (this.signal?.aborted) {
        throw new LlmCallException('the call was aborted', 'aborted', false);
      }
      this.waitedMs += wait;
    }
  }

  async succeeded(lease: Pick<Lease, 'key' | 'span'>, usage: Usage): Promise<void> {
    lease.span?.setAttributes({
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
    });
    lease.span?.end();
    await this.router.record(this.target, lease.key, usage);
  }

  /**
   * Decides what a failure means: the key's fault (rate limit, refused, server or network
   * trouble) → the caller tries `next()`; anything else (bad request…) → thrown, redacted.
   */
  async failed(lease: Pick<Lease, 'key' | 'span'>, err: unknown): Promise<void> {
    const error = this.redacted(lease, err);
    if (lease.span) {
      const status = httpStatusOf(err);
      lease.span.recordException(error);
      lease.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      lease.span.setAttributes({
        'error.type': error.code,
        ...(status !== undefined ? { 'http.response.status_code': status } : {}),
      });
      lease.span.end();
    }
    if (this.signal?.aborted) {
      throw err;
    }
    const key = lease.key;
    const status = httpStatusOf(err);
    if (!key) {
      throw error;
    }
    const model = this.target.model.name;
    if (status === 429) {
      llmCalls.inc({ model, outcome: 'rate_limited' });
      llmFailovers.inc({ model, reason: 'rate_limited' });
      const rest = retryAfterMsOf(err) ?? this.router.cooldownMs;
      this.router.pool.rest(key.id, rest);
      this.router.warn(this.target, key, `rate limited (429): key rests ${rest} ms, trying the next key`);
      this.lastError = new LlmCallException(error.message, 'llm_rate_limited', true);
      return;
    }
    if (status === 401 || status === 403) {
      llmCalls.inc({ model, outcome: 'unauthorized' });
      llmFailovers.inc({ model, reason: 'unauthorized' });
      await this.router.store.quarantine(
        key,
        `HTTP ${status} from the vendor: ${error.message}`.slice(0, 500),
      );
      this.excluded.add(key.id);
      this.lastError = error;
      return;
    }
    if (error.retryable) {
      llmCalls.inc({ model, outcome: 'retryable_error' });
      llmFailovers.inc({ model, reason: 'retryable_error' });
      // 5xx, 408, timeouts, refused connections: the next key may reach a healthier path.
      this.router.pool.rest(key.id, Math.min(FAILURE_REST_MS, this.router.cooldownMs));
      this.excluded.add(key.id);
      this.router.warn(this.target, key, `call failed, trying the next key: ${error.message}`);
      this.lastError = error;
      return;
    }
    llmCalls.inc({ model, outcome: 'error' });
    throw error;
  }

  /** A failure after the reply started streaming cannot move to another key. */
  fatal(lease: Pick<Lease, 'key'>, err: unknown): LlmCallException {
    llmCalls.inc({ model: this.target.model.name, outcome: 'error' });
    return this.redacted(lease, err);
  }

  private redacted(lease: Pick<Lease, 'key'>, err: unknown): LlmCallException {
    const e = classifyLlmError(err);
    const secrets = this.router.secretOf(lease.key);
    return secrets.length ? new LlmCallException(redactSecrets(e.message, secrets), e.code, e.retryable) : e;
  }

  private exhausted(): LlmCallException {
    const { model, vendor } = this.target;
    const where = `model "${model.name}" of vendor "${vendor.name}"`;
    if (this.target.keys.length === 0) {
      return new LlmCallException(
        `no active key for ${where}${this.target.tenantId ? ' usable by this tenant' : ''}`,
        'no_model_key',
        false,
      );
    }
    const last = this.lastError;
    if (!last || last.retryable) {
      return new LlmCallException(
        `every key of ${where} is rate limited or failing${last ? `; last error: ${last.message}` : ''}`,
        last?.code ?? 'llm_rate_limited',
        true,
      );
    }
    return new LlmCallException(
      `no usable key left for ${where} (refused keys are quarantined); last error: ${last.message}`,
      'no_model_key',
      false,
    );
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
