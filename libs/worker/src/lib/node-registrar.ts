import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { KV } from 'nats';
import { NODE_REGISTRY_BUCKET, type NodeRegistration } from '@switchyard/contracts';
import { JetStreamConnection, encodeJson } from '@switchyard/jetstream';
import { ServiceConfig } from '@switchyard/platform';
import { NODE_SPEC, type NodeSpec } from './node-handler.decorator';

const REFRESH_MS = 30_000;

/** Writes this service's nodes into the `sy_nodes` KV bucket at start-up and while it runs. */
@Injectable()
export class NodeRegistrar implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(NodeRegistrar.name);
  private timer?: NodeJS.Timeout;
  private kv?: KV;
  private specs: NodeSpec[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(ServiceConfig) private readonly config: ServiceConfig,
  ) {}

  /** The nodes this process serves, found from `@NodeHandler` methods. */
  nodes(): NodeSpec[] {
    if (this.specs.length === 0) {
      for (const wrapper of this.discovery.getControllers()) {
        const instance = wrapper.instance as object | undefined;
        if (!instance) {
          continue;
        }
        const proto = Object.getPrototypeOf(instance) as object;
        for (const method of this.scanner.getAllMethodNames(proto)) {
          const spec = Reflect.getMetadata(
            NODE_SPEC,
            (proto as Record<string, unknown>)[method] as object,
          ) as NodeSpec | undefined;
          if (spec) {
            this.specs.push(spec);
          }
        }
      }
    }
    return this.specs;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.kv = await this.nats.kv(NODE_REGISTRY_BUCKET);
    await this.register();
    this.timer = setInterval(() => {
      this.register().catch((err: Error) => this.logger.warn(`node registration failed: ${err.message}`));
    }, REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async register(): Promise<void> {
    const kv = this.kv;
    if (!kv) {
      return;
    }
    const now = new Date().toISOString();
    for (const spec of this.nodes()) {
      const entry: NodeRegistration = {
        name: spec.name,
        service: this.config.service,
        kind: 'service',
        tool: spec.tool ?? false,
        description: spec.description,
        input_schema: spec.inputSchema ?? { type: 'object', properties: {} },
        idempotent: spec.idempotent ?? false,
        ...(spec.types ? { types: spec.types } : {}),
        ...(spec.timeoutMs !== undefined ? { timeout_ms: spec.timeoutMs } : {}),
        registered_at: now,
      };
      await kv.put(spec.name, encodeJson(entry));
    }
    this.logger.debug({ msg: 'nodes registered', nodes: this.specs.map((s) => s.name) });
  }
}
