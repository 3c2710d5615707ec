import { z } from 'zod';

/** A data block of a PuppyEngine workflow (engine JSON `blocks[id]`). */
export const PuppyBlockSchema = z
  .object({
    label: z.string().default(''),
    type: z.string().default('text'),
    data: z
      .object({ content: z.unknown().optional(), indexingList: z.array(z.unknown()).optional() })
      .passthrough()
      .default({}),
    looped: z.boolean().nullish(),
    storage_class: z.string().nullish(),
    // Editor flags kept by the conversion: they choose the run's inputs and answer.
    isInput: z.boolean().nullish(),
    isOutput: z.boolean().nullish(),
  })
  .passthrough();
export type PuppyBlock = z.infer<typeof PuppyBlockSchema>;

/** A computation of a PuppyEngine workflow (engine JSON `edges[id]`). */
export const PuppyEdgeSchema = z
  .object({
    type: z.string().min(1),
    data: z
      .object({
        inputs: z.record(z.string(), z.string()).default({}),
        outputs: z.record(z.string(), z.string()).default({}),
      })
      .passthrough(),
  })
  .passthrough();
export type PuppyEdge = z.infer<typeof PuppyEdgeSchema>;

/** The engine JSON PuppyEngine executes: edges are the computations, blocks are the data. */
export const PuppyWorkflowSchema = z
  .object({
    blocks: z.record(z.string(), PuppyBlockSchema),
    edges: z.record(z.string(), PuppyEdgeSchema),
    version: z.string().optional(),
  })
  .passthrough();
export type PuppyWorkflow = z.infer<typeof PuppyWorkflowSchema>;

/** Edge types PuppyEngine's factory knows (`ConfigParserFactory`): every one runs here. */
export const PUPPY_EDGE_TYPES = [
  'load',
  'llm',
  'generator',
  'chunk',
  'search',
  'ifelse',
  'modify',
  'deep_research',
] as const;
