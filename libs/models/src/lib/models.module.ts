import {
  type DynamicModule,
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import type { Subscription } from 'nats';
import { DataSource } from 'typeorm';
import { SecretBox, llmEnvSchema, loadConfigOrExit, secretEnvSchema } from '@switchyard/config';
import { REGISTRY_CHANGED_SUBJECT } from '@switchyard/contracts';
import { JetStreamConnection } from '@switchyard/jetstream';
import { ChatModels } from './chat-models';
import { ModelRouter } from './model-router';
import { EmbeddingModels } from './registry-embeddings';
import { type ModelsConfig, registryEnvSchema } from './models.config';
import { RegistryStore } from './registry.store';
import { RunScopes } from './run-scope';
import { UsageMeter } from './usage-meter';

/** Builds the registry-backed ChatModels on a Postgres connection. */
export function createChatModels(ds: DataSource, cfg: ModelsConfig): ChatModels {
  const ttl = cfg.registry.SWITCHYARD_MODEL_REGISTRY_TTL_MS;
  const store = new RegistryStore(
    ds,
    new SecretBox(cfg.secretKey),
    cfg.llm,
    ttl,
    cfg.registry.SWITCHYARD_MODEL_REGISTRY_LEASE_MS,
  );
  const meter = new UsageMeter(ds, ttl);
  // Budgets change with the registry's revision (a trigger on tenants.token_budget bumps it).
  store.onChange(() => meter.forgetUnlimited());
  return new ChatModels(new ModelRouter(store, meter, new RunScopes(ds), cfg));
}

/** The models configuration of a service, validated (exits naming a bad variable). */
export function loadModelsConfig(service: string): ModelsConfig {
  return {
    llm: loadConfigOrExit(llmEnvSchema, service),
    registry: loadConfigOrExit(registryEnvSchema, service),
    secretKey: loadConfigOrExit(secretEnvSchema, service).SWITCHYARD_SECRET_KEY,
  };
}

class SeedRegistry implements OnApplicationBootstrap {
  constructor(@Inject(ChatModels) private readonly models: ChatModels) {}

  async onApplicationBootstrap(): Promise<void> {
    // Seeding also runs before the first call; failing here (migrations not applied yet…) must not
    // stop the service from starting.
    await this.models.router.store
      .ensureSeeded()
      .catch((err: Error) =>
        new Logger('ModelRegistry').warn(
          `seeding from SWITCHYARD_LLM_* deferred to the first call: ${err.message}`,
        ),
      );
  }
}

/** Reloads the registry copy when the gateway announces a change (`sy.registry.changed`). */
class RegistryChangeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private sub?: Subscription;

  constructor(
    @Inject(ChatModels) private readonly models: ChatModels,
    @Optional() @Inject(JetStreamConnection) private readonly nats?: JetStreamConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.sub = this.nats?.nc.subscribe(REGISTRY_CHANGED_SUBJECT, {
      callback: (err) => {
        if (!err) {
          this.models.router.store.invalidate();
        }
      },
    });
  }

  onApplicationShutdown(): void {
    this.sub?.unsubscribe();
  }
}

@Module({})
export class ModelsModule {
  static forRoot(service: string): DynamicModule {
    const cfg = loadModelsConfig(service);
    return {
      module: ModelsModule,
      global: true,
      providers: [
        {
          provide: ChatModels,
          useFactory: (ds: DataSource) => createChatModels(ds, cfg),
          inject: [DataSource],
        },
        {
          provide: EmbeddingModels,
          useFactory: (chat: ChatModels) => new EmbeddingModels(chat.router),
          inject: [ChatModels],
        },
        SeedRegistry,
        RegistryChangeListener,
      ],
      exports: [ChatModels, EmbeddingModels],
    };
  }
}
