import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { GRAPH_ENTRY_NODE, NODE_REGISTRY_BUCKET, type NodeRegistration } from '@switchyard/contracts';
import { JetStreamConnection, encodeJson } from '@switchyard/jetstream';

const SERVICE = 'planner';

/**
 * Registers `graph.<component>` nodes (served by the planner) in `sy_nodes` so the orchestrator can
 * route to them — from the planner, and from the orchestrator when it runs components inline:
 * the entry node at start-up, every other one before the first action that names it (node
 * names are the same for every agent, so a registration serves all of them).
 */
@Injectable()
export class GraphNodesRegistrar implements OnApplicationBootstrap {
  private readonly known = new Set<string>();

  constructor(@Inject(JetStreamConnection) private readonly nats: JetStreamConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensure([GRAPH_ENTRY_NODE]);
  }

  async ensure(nodes: readonly string[]): Promise<void> {
    const missing = nodes.filter((n) => !this.known.has(n));
    if (!missing.length) {
      return;
    }
    const kv = await this.nats.kv(NODE_REGISTRY_BUCKET);
    for (const name of missing) {
      const entry = await kv.get(name);
      if (!entry || entry.operation !== 'PUT') {
        const reg: NodeRegistration = {
          name,
          service: SERVICE,
          kind: 'service',
          tool: false,
          description: 'A component of a graph agent’s canvas.',
          input_schema: { type: 'object' },
          idempotent: true,
          registered_at: new Date().toISOString(),
        };
        await kv.put(name, encodeJson(reg));
      }
      this.known.add(name);
    }
  }
}
