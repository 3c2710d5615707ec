import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { type LlmEnv, SecretBox, type StructuredOutputMode } from '@switchyard/config';
import { ModelsRepository } from './models.repository';

export type VendorKind = 'openai' | 'anthropic' | 'ollama';

export interface RegistryVendor {
  id: string;
  name: string;
  kind: VendorKind;
  base_url: string | null;
}

export interface RegistryKey {
  id: string;
  vendor_id: string;
  label: string | null;
  tenant_id: string | null;
  /** Only with a tenant: the key serves that business of the tenant only. */
  business_id: string | null;
  secret_sealed: string;
  fingerprint: string;
  status: 'active' | 'quarantined' | 'revoked';
}

export interface ParserSpec {
  schema: Record<string, unknown>;
  max_retries: number;
}

export interface RegistryModel {
  id: string;
  vendor_id: string;
  name: string;
  category: string;
  version: string;
  price_per_1k_input: number;
  price_per_1k_output: number;
  parser: Record<string, ParserSpec> | null;
  /** How the model returns structured replies; null = its vendor kind's default. */
  structured_output: StructuredOutputMode | null;
}

export interface RegistryEndpoint {
  vendor_id: string;
  url: string;
  categories: string[];
}

export interface RegistrySnapshot {
  vendors: Map<string, RegistryVendor>;
  keys: RegistryKey[];
  /** Oldest first, so a name shared by several vendors resolves to the same model every time. */
  models: RegistryModel[];
  endpoints: RegistryEndpoint[];
}

/** The vendor, key and model the `SWITCHYARD_LLM_*` variables seed for quick start. */
export const ENV_VENDOR = 'default';
export const ENV_KEY_LABEL = 'env';
// Any constant: every process seeding the registry takes this transaction lock, so replicas
// starting together insert the env rows once.
const SEED_LOCK = 727_274_020;

/**
 * The model registry as this process sees it: every vendor, key, endpoint and model, read in one
 * go and reused (the tables are small and change rarely) while the registry's revision is the
 * same and it is younger than `ttlMs`. Every write to the registry's tables bumps
 * `registry_revision` in its own transaction, and `get()` knows the revision as of the call's
 * start, so a call that starts after a change is in force (a revoked key, a new model) sees it,
 * whichever process made it.
 *
 * Knowing the revision costs one single-row read, and a read stands for every call that starts
 * within `leaseMs` of the moment it was sent (`revision`). The gateway holds every registry write's
 * response for `leaseMs` after its commit (RegistryChangedInterceptor), so a call that starts after
 * the response began is covered by a read sent after the commit: a revoked key is never used by a
 * call that starts after the revoke returned. With `leaseMs` 0 every call reads. A
 * `sy.registry.changed` notice from the gateway drops the lease and reloads ahead of the next call
 * (`invalidate`).
 */
export class RegistryStore {
  private readonly logger = new Logger('ModelRegistry');
  private snapshot?: { at: number; revision: number; data: RegistrySnapshot };
  private loading?: Promise<RegistrySnapshot>;
  private seeded?: Promise<void>;
  private readonly listeners: (() => void)[] = [];
  private lastRevision?: number;
  private revisionRead?: Promise<number>;
  private nextRevisionRead?: Promise<number>;
  /** The newest revision read and until when (performance.now()) it stands for a call's start. */
  private lease?: { revision: number; until: number };

  private readonly tables: ModelsRepository;

  constructor(
    ds: DataSource,
    private readonly box: SecretBox,
    private readonly env: LlmEnv,
    private readonly ttlMs: number,
    /** How long after a revision read was sent it stands for calls that start (0: never). */
    readonly leaseMs = 0,
  ) {
    this.tables = new ModelsRepository(ds);
  }

  /** The registry as of now: at least every change committed before this call. */
  async get(): Promise<RegistrySnapshot> {
    await this.ensureSeeded();
    const wanted = await this.revision();
    const s = this.snapshot;
    if (s && s.revision >= wanted && Date.now() - s.at < this.ttlMs) {
      return s.data;
    }
    for (;;) {
      const data = await this.reload();
      // A load already under way may have read the tables before the change: read again.
      if ((this.snapshot?.revision ?? 0) >= wanted) {
        return data;
      }
    }
  }

  /** Reads the tables again (one read at a time: callers arriving meanwhile share it). */
  reload(): Promise<RegistrySnapshot> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** The registry changed (a notice from the gateway): read it now, before the next call needs it. */
  invalidate(): void {
    this.snapshot = undefined;
    this.lease = undefined;
    this.reload().catch((err: Error) => this.logger.warn(`registry reload failed: ${err.message}`));
  }

  /** Called whenever a load finds a newer revision (the budget cache listens). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * The registry's revision as of this call's start: the lease's, while a read sent less than
   * `leaseMs` ago holds it, else read after this call began. A read already under way may have been
   * sent before a change this call must see, so it cannot stand for it; the next read, sent when
   * that one ends, is shared by every call that arrived meanwhile (many calls at once cost two
   * reads, not one each).
   */
  private revision(): Promise<number> {
    const lease = this.lease;
    if (lease && performance.now() < lease.until) {
      return Promise.resolve(lease.revision);
    }
    if (!this.revisionRead) {
      this.revisionRead = this.readRevision().finally(() => {
        this.revisionRead = undefined;
      });
      return this.revisionRead;
    }
    this.nextRevisionRead ??= this.revisionRead
      .catch(() => undefined)
      .then(() => {
        this.nextRevisionRead = undefined;
        return this.revision();
      });
    return this.nextRevisionRead;
  }

  private async readRevision(): Promise<number> {
    // Known before every call (a revoked key is never used after the revoke returns): prepared.
    const sent = performance.now();
    const revision = (await this.tables.registryRevision()) ?? 0;
    // The read saw every change committed before it was sent: it stands for calls starting within
    // the lease (the gateway holds a write's response as long). A later-sent read never sees less.
    if (this.leaseMs > 0 && sent + this.leaseMs > (this.lease?.until ?? -Infinity)) {
      this.lease = { revision, until: sent + this.leaseMs };
    }
    return revision;
  }

  openSecret(key: RegistryKey): string {
    return this.box.open(key.secret_sealed);
  }

  /** A key the vendor refused (401/403): never used again until an admin re-activates it. */
  async quarantine(key: RegistryKey, reason: string): Promise<void> {
    key.status = 'quarantined';
    await this.tables.quarantineKey(key.id, reason.slice(0, 500));
    this.logger.warn({ key_id: key.id, key: key.fingerprint, msg: `vendor key quarantined: ${reason}` });
  }

  /** Seeds the env vendor/key/model once per process; a failure is retried by the next call. */
  ensureSeeded(): Promise<void> {
    this.seeded ??= this.seedFromEnv().catch((err: unknown) => {
      this.seeded = undefined;
      throw err;
    });
    return this.seeded;
  }

  private async seedFromEnv(): Promise<void> {
    const env = this.env;
    const fingerprint = SecretBox.fingerprint(env.SWITCHYARD_LLM_API_KEY);
    await this.tables.seedFromEnv({
      lock: SEED_LOCK,
      vendor: ENV_VENDOR,
      baseUrl: env.SWITCHYARD_LLM_BASE_URL,
      keyLabel: ENV_KEY_LABEL,
      sealedSecret: () => this.box.seal(env.SWITCHYARD_LLM_API_KEY),
      fingerprint,
      model: env.SWITCHYARD_LLM_MODEL,
      structuredOutput: env.SWITCHYARD_LLM_STRUCTURED_OUTPUT ?? null,
    });
    this.logger.log({
      key: fingerprint,
      msg: `model registry seeded from SWITCHYARD_LLM_* (vendor "${ENV_VENDOR}")`,
    });
  }

  private async load(): Promise<RegistrySnapshot> {
    const { revision, vendors, keys, models, endpoints } = await this.tables.loadRegistry();
    const data: RegistrySnapshot = {
      vendors: new Map(vendors.map((v) => [v.id, v])),
      keys,
      models,
      endpoints,
    };
    this.snapshot = { at: Date.now(), revision: revision ?? 0, data };
    if (this.lastRevision !== undefined && this.lastRevision !== this.snapshot.revision) {
      this.listeners.forEach((listener) => listener());
    }
    this.lastRevision = this.snapshot.revision;
    return data;
  }
}
