import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  ASK_USER,
  AskUserInputJsonSchema,
  CLIENT_TOOL,
  NODE_REGISTRY_BUCKET,
  type NodeRegistration,
} from '@switchyard/contracts';
import { JetStreamConnection, encodeJson } from '@switchyard/jetstream';

/** Human nodes have no worker: the orchestrator, which handles their tasks, registers them. */
@Injectable()
export class HumanNodesRegistrar implements OnApplicationBootstrap {
  constructor(@Inject(JetStreamConnection) private readonly nats: JetStreamConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    const kv = await this.nats.kv(NODE_REGISTRY_BUCKET);
    const entry: NodeRegistration = {
      name: ASK_USER.name,
      service: 'run-orchestrator',
      kind: 'human',
      tool: true,
      description: ASK_USER.description,
      input_schema: AskUserInputJsonSchema,
      idempotent: true,
      registered_at: new Date().toISOString(),
    };
    await kv.put(entry.name, encodeJson(entry));
    // Not a tool of the catalogue: the planner offers the client's own functions under their names.
    const client: NodeRegistration = {
      name: CLIENT_TOOL.name,
      service: 'run-orchestrator',
      kind: 'human',
      tool: false,
      description: CLIENT_TOOL.description,
      input_schema: {
        type: 'object',
        properties: { name: { type: 'string' }, arguments: { type: 'object' } },
      },
      idempotent: true,
      registered_at: entry.registered_at,
    };
    await kv.put(client.name, encodeJson(client));
  }
}
