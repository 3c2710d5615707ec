import { Inject, Injectable } from '@nestjs/common';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { JsonPatchOperation, ResponseFormat, RuntimeState, Usage } from '@switchyard/contracts';
import { ChatModels, LlmCallException, invokeStructured } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { type OutputMaterial, materialSections } from '../output-material';

export type StructureEntry = RuntimeState['output_structure'][number];

const SYSTEM = `[switchyard:output-structured] You fill the parts of a structured answer to the user's
request from the work done in this turn: one entry per part, with the part's id from the structure
and its content, of the part's type.`;

// Only for models that take JSON from the prompt; the others get ReplySchema natively.
const PROMPT_SHAPE = `{"entries": [{"id": "<an id from the structure>", "content": <the part's content, of its type>}]}.`;

const ReplySchema = z.object({
  entries: z.array(z.object({ id: z.string().min(1), content: z.unknown() })),
});

// One retry with the parse error fed back, as for intake.
const PARSE_RETRIES = 1;

const RESPONSE_SYSTEM = `[switchyard:output-structured] You write the answer to the user's request from the
work done in this turn as one JSON value and nothing else.`;

// A reply that misses the client's schema gets two more chances with the errors fed back.
const RESPONSE_RETRIES = 2;

/** `output_structured`: fills the contents of the thread's `output_structure` (set by intake). */
@Injectable()
export class StructuredOutputTool {
  constructor(@Inject(ChatModels) private readonly models: ChatModels) {}

  async fill(
    structure: readonly StructureEntry[],
    material: OutputMaterial,
    signal: AbortSignal,
  ): Promise<{ structured: StructureEntry[]; patch: JsonPatchOperation[]; usage: Usage; note: string }> {
    if (structure.length === 0) {
      return { structured: [], patch: [], usage: sumUsages([]), note: 'no output structure to fill' };
    }
    const wanted = structure.map((e) => `- id "${e.id}" (${e.type}): ${e.expected}`).join('\n');
    const { value, usages } = await invokeStructured(
      this.models.chat({ role: 'output' }),
      [
        new SystemMessage(`${SYSTEM}\n\nStructure:\n${wanted}\n\n${materialSections(material)}`),
        new HumanMessage(material.prompt),
      ],
      ReplySchema,
      { maxRetries: PARSE_RETRIES, signal, label: 'output_structured', promptShape: PROMPT_SHAPE },
    );
    const byId = new Map(value.entries.map((e) => [e.id, e.content]));
    const structured = structure.map((e) =>
      byId.has(e.id) ? { ...e, content: byId.get(e.id) ?? null } : { ...e },
    );
    const patch: JsonPatchOperation[] = structure.flatMap((e, i) =>
      byId.has(e.id)
        ? [{ op: 'replace' as const, path: `/output_structure/${i}/content`, value: byId.get(e.id) ?? null }]
        : [],
    );
    const missing = structure.filter((e) => !byId.has(e.id)).map((e) => e.id);
    const unknown = value.entries.filter((e) => !structure.some((s) => s.id === e.id)).map((e) => e.id);
    const note = [
      `filled ${patch.length}/${structure.length} structure entries`,
      missing.length ? `left empty: ${missing.join(', ')}` : '',
      unknown.length ? `ignored unknown ids: ${unknown.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    return { structured, patch, usage: sumUsages(usages), note };
  }

  /**
   * The answer as the client's `response_format` asks: JSON valid against its schema
   * (`json_schema`) or any JSON object (`json_object`). It becomes the turn's output structure,
   * one entry named after the schema holding the value.
   */
  async respond(
    format: ResponseFormat,
    material: OutputMaterial,
    signal: AbortSignal,
  ): Promise<{
    value: unknown;
    structured: StructureEntry[];
    patch: JsonPatchOperation[];
    usage: Usage;
    note: string;
  }> {
    const schema: Record<string, unknown> =
      format.type === 'json_schema' ? format.json_schema.schema : { type: 'object' };
    // A fresh instance per answer: Ajv keeps every schema it compiled, and these come from clients.
    const ajv = new Ajv({ allErrors: true, strict: false });
    let validate: ReturnType<Ajv['compile']>;
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      throw new LlmCallException(
        `response_format: the schema does not compile: ${(err as Error).message}`,
        'invalid_response_format',
        false,
      );
    }
    // The client's schema is what the vendor is asked for (the meta is the derived JSON Schema) and
    // what the reply is checked against.
    const valueSchema = z
      .unknown()
      .superRefine((v, ctx) => {
        if (!validate(v)) {
          ctx.addIssue({
            code: 'custom',
            message: `the JSON does not match the schema: ${ajv.errorsText(validate.errors, { dataVar: 'reply', separator: '; ' })}`,
          });
        }
      })
      .meta(schema);
    const name = format.type === 'json_schema' ? format.json_schema.name : 'json_object';
    const wanted =
      format.type === 'json_schema'
        ? `The JSON must match this JSON Schema (${name}${format.json_schema.description ? `: ${format.json_schema.description}` : ''}):\n${JSON.stringify(schema)}`
        : 'The JSON must be an object.';
    const { value, usages, calls } = await invokeStructured(
      this.models.chat({ role: 'output' }),
      [
        new SystemMessage(`${RESPONSE_SYSTEM}\n\n${wanted}\n\n${materialSections(material)}`),
        new HumanMessage(material.prompt),
      ],
      valueSchema,
      { maxRetries: RESPONSE_RETRIES, signal, label: 'response_format' },
    );
    const entry: StructureEntry = {
      id: name,
      expected:
        format.type === 'json_schema'
          ? (format.json_schema.description ?? `JSON (${name})`)
          : 'a JSON object',
      type: format.type,
      content: value,
    };
    return {
      value,
      structured: [entry],
      patch: [{ op: 'replace', path: '/output_structure', value: [entry] }],
      usage: sumUsages(usages),
      note: `wrote the ${format.type} response (${name}) in ${calls} call${calls === 1 ? '' : 's'}`,
    };
  }
}
