import { z } from 'zod';

const ParamsSchema = z.record(z.string(), z.unknown());

/** One component of a canvas (RAGFlow `components[id]`). */
export const CanvasComponentSchema = z
  .object({
    obj: z.object({ component_name: z.string().min(1), params: ParamsSchema.nullish() }).passthrough(),
    downstream: z.array(z.string()).default([]),
    upstream: z.array(z.string()).default([]),
    parent_id: z.string().nullish(),
  })
  .passthrough();
export type CanvasComponent = z.infer<typeof CanvasComponentSchema>;

export const GraphNodeSchema = z
  .object({
    id: z.string().min(1),
    parentId: z.string().nullish(),
    data: z
      .object({ label: z.string().min(1), name: z.string().nullish(), form: ParamsSchema.nullish() })
      .passthrough(),
  })
  .passthrough();
export const GraphEdgeSchema = z
  .object({
    source: z.string(),
    target: z.string(),
    sourceHandle: z.string().nullish(),
    targetHandle: z.string().nullish(),
  })
  .passthrough();
/** The editor's React-Flow graph: layout, except for display names and graph-only DSLs. */
export const CanvasGraphSchema = z
  .object({ nodes: z.array(GraphNodeSchema).default([]), edges: z.array(GraphEdgeSchema).default([]) })
  .passthrough();
export type CanvasGraph = z.infer<typeof CanvasGraphSchema>;

/** A canvas variable (`variables[K]`): `env.K` starts from `value`, else its type's default. */
export const CanvasVariableSchema = z
  .object({ type: z.string().nullish(), value: z.unknown().optional() })
  .passthrough();

/** The components form of a RAGFlow agent DSL, which is what runs. */
export const CanvasDslSchema = z
  .object({
    components: z.record(z.string(), CanvasComponentSchema),
    globals: z.record(z.string(), z.unknown()).default({}),
    // Older editors save an empty list here.
    variables: z.preprocess(
      (v) => (Array.isArray(v) && v.length === 0 ? {} : v),
      z.record(z.string(), CanvasVariableSchema).default({}),
    ),
    graph: CanvasGraphSchema.optional(),
  })
  .passthrough();
export type CanvasDsl = z.infer<typeof CanvasDslSchema>;

/** The normalized canvas every consumer works on: components with their params always present. */
export interface Canvas {
  components: Record<string, NormalizedComponent>;
  globals: Record<string, unknown>;
  variables: Record<string, { type?: string | null; value?: unknown }>;
  /** Display names (`graph.nodes[].data.name`), by component id. */
  names: Record<string, string>;
}

export interface NormalizedComponent {
  id: string;
  name: string;
  params: Record<string, unknown>;
  downstream: string[];
  upstream: string[];
  parentId?: string;
}
