import { z } from 'zod';
import type { RuntimeState } from './state.schema';

/**
 * `client_tool`: functions the API client brought with its request (OpenAI `tools`). The planner
 * offers them beside the agent's own tools; a call of one is a `client_tool` call (args
 * `{name, arguments}`) whose task, like `ask_user`'s, has no worker: the run waits until the
 * client sends the function's result, which becomes the action's result; routing goes on at `next`.
 */
export const CLIENT_TOOL = {
  name: 'client_tool',
  description: "A function of the API client's request: the run waits for the client to run it.",
  next: ['planner'],
  argsSchema: z.object({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
  }),
} as const;

/** The answer to a run waiting for client functions (`POST /v1/runs/:id/resume` `input`). */
export const ClientToolOutputsSchema = z.object({
  tool_outputs: z
    .array(z.object({ tool_call_id: z.string().min(1), output: z.string().max(1_000_000) }))
    .min(1),
});
export type ClientToolOutputs = z.infer<typeof ClientToolOutputsSchema>;

export const CLIENT_TOOL_OUTPUTS_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    tool_outputs: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: { tool_call_id: { type: 'string' }, output: { type: 'string' } },
        required: ['tool_call_id', 'output'],
      },
    },
  },
  required: ['tool_outputs'],
};

/** OpenAI function names: `[a-zA-Z0-9_-]{1,64}`. */
export const ClientFunctionNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a function name is 1 to 64 letters, digits, _ or -');

export const ClientToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: ClientFunctionNameSchema,
    description: z.string().max(10_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
export type ClientTool = z.infer<typeof ClientToolSchema>;

/** How the client wants the run's answer: JSON matching a schema, or any JSON object. */
export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1).max(64),
      description: z.string().max(10_000).optional(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullish(),
    }),
  }),
  z.object({ type: z.literal('json_object') }),
]);
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

/** What a run's input brings beside its prompt for an OpenAI-style request. */
export interface ClientRequestOptions {
  client_tools?: ClientTool[];
  response_format?: ResponseFormat;
}

/** The `result` of the `start` action that opens a turn: the run's input the nodes read. */
export const StartResultSchema = z.object({
  prompt: z.string(),
  agent_id: z.string(),
  // Where the turn's prompt sits in chat_history (after any history the request brought).
  chat_index: z.number().int().min(0).optional(),
  client_tools: z.array(ClientToolSchema).optional(),
  response_format: ResponseFormatSchema.optional(),
});
export type StartResult = z.infer<typeof StartResultSchema>;

/** The client tools and response format of the state's current turn (from its `start` action). */
export function clientRequestOf(state: Readonly<RuntimeState>): ClientRequestOptions {
  const start = (state.action_history[state.turn] ?? []).find((a) => a.node === 'start');
  const parsed = start ? StartResultSchema.safeParse(start.result) : undefined;
  if (!parsed?.success) {
    return {};
  }
  return {
    ...(parsed.data.client_tools?.length ? { client_tools: parsed.data.client_tools } : {}),
    ...(parsed.data.response_format ? { response_format: parsed.data.response_format } : {}),
  };
}
