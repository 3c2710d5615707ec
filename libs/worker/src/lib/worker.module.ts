import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PgStateSource } from '@switchyard/persistence';
import { ServiceConfig, TenantWeights, boundedStateCache } from '@switchyard/platform';
import { StateCache } from '@switchyard/state';
import { CancelRegistry } from './cancel.registry';
import { NodeRegistrar } from './node-registrar';
import { NodeRuntime } from './node-runtime';
import { countedReads } from './state-reads';
import { ToolReceipts } from './tools/tool-receipts';

/** Everything a node service needs to serve tasks: the runtime, the state cache, registration, cancel. */
@Module({})
export class WorkerModule {
  static forRoot(opts: { cacheThreads?: number } = {}): DynamicModule {
    return {
      module: WorkerModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        {
          provide: StateCache,
          useFactory: (source: PgStateSource, config: ServiceConfig) =>
            boundedStateCache(
              config,
              (maxBytes) => new StateCache(countedReads(source), opts.cacheThreads ?? 1000, maxBytes),
            ),
          inject: [PgStateSource, ServiceConfig],
        },
        CancelRegistry,
        NodeRegistrar,
        NodeRuntime,
        ToolReceipts,
        TenantWeights,
      ],
      exports: [StateCache, CancelRegistry, NodeRuntime, NodeRegistrar, ToolReceipts, TenantWeights],
    };
  }
}
