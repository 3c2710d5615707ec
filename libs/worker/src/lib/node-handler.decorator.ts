import { SetMetadata, UseFilters, applyDecorators } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import { SUBJECT_PATTERNS, type ToolType } from '@switchyard/contracts';
import { JetStreamExceptionFilter } from '@switchyard/jetstream';

export const NODE_SPEC = Symbol('switchyard:node-spec');

/**
 * How a node presents itself in the `sy_nodes` registry. A tool must say what its arguments are
 * and whether running it twice is safe (nodes run at least once): the compiler enforces both.
 */
export type NodeSpec = {
  name: string;
  description: string;
  /**
   * The node's own task deadline (ms), when its work needs another than SWITCHYARD_TASK_TIMEOUT_MS:
   * an agent's `node_timeouts_ms` still overrides it.
   */
  timeoutMs?: number;
} & (
  | {
      /** Offered to the planner as a tool. */
      tool: true;
      /** JSON Schema of the arguments a tool reads from the planner's call. */
      inputSchema: Record<string, unknown>;
      /** Safe to run twice. */
      idempotent: boolean;
      /** Seed 003's tool types (default: `call`). */
      types?: ToolType[];
    }
  | { tool?: false; inputSchema?: undefined; idempotent?: boolean; types?: undefined }
);

/**
 * Binds a controller method to the tasks of one node: `sy.task.<service>.<node>` (the consumer's
 * filter already limits it to this service) and registers the node in `sy_nodes`.
 */
export function NodeHandler(spec: NodeSpec): MethodDecorator {
  return applyDecorators(
    EventPattern(SUBJECT_PATTERNS.task(spec.name)),
    SetMetadata(NODE_SPEC, spec),
    // The transport must see the handler's own error (retryable or not), not Nest's generic one.
    UseFilters(new JetStreamExceptionFilter()),
  );
}

/**
 * Binds a controller method to the tasks of every node named `<prefix>.<…>`: nodes a service
 * registers at runtime (an MCP server's tools, `mcp.<server>.<tool>`) rather than one
 * `@NodeHandler` each. The pattern `sy.task.*.<prefix>.>` never matches an undotted node name,
 * so the exact handlers keep theirs. Registering those nodes in `sy_nodes` is the caller's job.
 */
export function NodePrefixHandler(prefix: string): MethodDecorator {
  if (!/^[a-z][a-z0-9_-]*$/.test(prefix)) {
    throw new Error(`node prefix "${prefix}" must be one lower-case node-name segment`);
  }
  return applyDecorators(
    EventPattern(SUBJECT_PATTERNS.taskPrefix(prefix)),
    UseFilters(new JetStreamExceptionFilter()),
  );
}
