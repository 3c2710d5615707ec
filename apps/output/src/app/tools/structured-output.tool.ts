import { Inject, Injectable } from '@nestjs/common';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import type { JsonPatchOperation, RuntimeState, Usage } from '@switchyard/contracts';
import { ChatModels, invokeStructured } from '@switchyard/models';
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
}
