import { SetMetadata, UseFilters, applyDecorators } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { JetStreamExceptionFilter } from '@switchyard/jetstream';

export const NODE_SPEC = Symbol('switchyard:node-spec');

/** How a node presents itself in the `sy_nodes` registry. */
export interface NodeSpec {
  name: string;
  description: string;
  /** Offered to the planner as a tool. */
  tool?: boolean;
  /** JSON Schema of the arguments a tool reads from the planner's call. */
  inputSchema?: Record<string, unknown>;
  /** Safe to run twice (nodes run at least once). */
  idempotent?: boolean;
}

/**
 * Binds a controller method to the tasks of one node: `sy.task.<service>.<node>` (the consumer's
 * filter already limits it to this service) and registers the node in `sy_nodes`.
 */
export function NodeHandler(spec: NodeSpec): MethodDecorator {
  return applyDecorators(
    EventPattern(`sy.task.*.${spec.name}`),
    SetMetadata(NODE_SPEC, spec),
    // The transport must see the handler's own error (retryable or not), not Nest's generic one.
    UseFilters(new JetStreamExceptionFilter()),
  );
}
