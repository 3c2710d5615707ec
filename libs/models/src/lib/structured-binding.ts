import type { BaseChatModel, BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { type AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { StructuredOutputMode } from '@switchyard/config';
import type { VendorKind } from './registry.store';

/** What a structured call asks of the model; how it is asked depends on the model (see `bindStructured`). */
export interface StructuredRequest {
  /** The schema's (and forced tool's) name: letters, digits, `_` and `-`. */
  name: string;
  /** The JSON Schema the reply must match (the caller's zod schema, or the registry's parser). */
  schema: Record<string, unknown>;
  /** Its OpenAI-strict form, when it has one (see `strictSchemaOf`). */
  strictSchema?: Record<string, unknown>;
  /** For `prompt` models only: the sentence that asks for JSON in the system prompt. */
  instruction: string;
}

/** How a structured reply was asked for, on the reply's `additional_kwargs.structured_output`. */
export interface StructuredUse {
  mode: StructuredOutputMode;
  /** OpenAI strict mode: optional properties came back as null (see `withoutAddedNulls`). */
  strict: boolean;
  /** The forced tool's name, when the reply is a tool call. */
  tool?: string;
}

/** The messages with `instruction` appended to the system prompt (one system message: Anthropic needs that). */
export function withPromptInstruction(messages: BaseMessage[], instruction: string): BaseMessage[] {
  const i = messages.findIndex((m) => m.getType() === 'system');
  if (i < 0) {
    return [new SystemMessage(instruction), ...messages];
  }
  const system = messages[i];
  const text = typeof system.content === 'string' ? system.content : JSON.stringify(system.content);
  return messages.map((m, j) => (j === i ? new SystemMessage(`${text}\n\n${instruction}`) : m));
}

/** A bound client: it answers the reply itself (`message`) or with langchain's parse of it (`raw`). */
export type StructuredBinding =
  | { reply: 'message'; runnable: Runnable<BaseMessage[], AIMessage>; use: StructuredUse }
  | { reply: 'raw'; runnable: Runnable<BaseMessage[], { raw: AIMessage }>; use: StructuredUse };

/** `withStructuredOutput`'s json-schema method (Anthropic `output_config.format`, Ollama `format`). */
function jsonSchemaBinding(client: BaseChatModel, req: StructuredRequest): StructuredBinding {
  return {
    reply: 'raw',
    runnable: client.withStructuredOutput(req.schema, { method: 'jsonSchema', includeRaw: true }) as Runnable<
      BaseMessage[],
      { raw: AIMessage }
    >,
    use: { mode: 'json_schema', strict: false },
  };
}

/**
 * The vendor client bound to return `req.schema` natively:
 * - OpenAI-compatible: `response_format: {type: "json_schema", json_schema: {name, strict, schema}}`
 *   (json_schema), or one forced function call (tool_call); `strict: true` when the schema has a
 *   strict form. The same binding as langchain's `withStructuredOutput`, but the reply comes back
 *   as it is: the registry's OpenAI clients send json_schema requests through the SDK's `create`,
 *   not its `parse`, which throws on a reply that is not JSON (client-factory), so a reply the
 *   structured call must feed back is kept, with its usage.
 * - Anthropic (`withStructuredOutput`): a forced tool (`tool_choice: {type: "tool", name}`;
 *   tool_call), or `output_config.format` (json_schema).
 * - Ollama (`withStructuredOutput`): `format` = the JSON Schema for both, since Ollama cannot force
 *   a tool call.
 * Either way the raw message comes back, so usage is metered and the caller validates the reply.
 */
export function bindStructured(
  client: BaseChatModel,
  kind: VendorKind,
  mode: Exclude<StructuredOutputMode, 'prompt'>,
  req: StructuredRequest,
): StructuredBinding {
  const description = `The reply, as ${req.name}`;
  switch (kind) {
    case 'openai': {
      const strict = req.strictSchema !== undefined;
      const schema = req.strictSchema ?? req.schema;
      if (mode === 'json_schema') {
        return {
          reply: 'message',
          runnable: client.withConfig({
            response_format: {
              type: 'json_schema',
              json_schema: { name: req.name, description, strict, schema },
            },
          } as Partial<BaseChatModelCallOptions>) as Runnable<BaseMessage[], AIMessage>,
          use: { mode, strict },
        };
      }
      return {
        reply: 'message',
        runnable: client.bindTools!(
          [{ type: 'function', function: { name: req.name, description, parameters: schema } }],
          {
            tool_choice: { type: 'function', function: { name: req.name } },
            strict,
          } as Partial<BaseChatModelCallOptions>,
        ) as Runnable<BaseMessage[], AIMessage>,
        use: { mode, strict, tool: req.name },
      };
    }
    case 'anthropic':
      if (mode === 'tool_call') {
        return {
          reply: 'raw',
          runnable: client.withStructuredOutput(
            { name: req.name, description, input_schema: req.schema },
            { method: 'functionCalling', includeRaw: true },
          ) as Runnable<BaseMessage[], { raw: AIMessage }>,
          use: { mode, strict: false, tool: req.name },
        };
      }
      return jsonSchemaBinding(client, req);
    case 'ollama':
      return jsonSchemaBinding(client, req);
  }
}
