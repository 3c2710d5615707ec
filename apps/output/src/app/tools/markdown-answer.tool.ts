import { Inject, Injectable } from '@nestjs/common';
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { DataSource } from 'typeorm';
import type { Usage } from '@switchyard/contracts';
import { ChatModels, classifyLlmError, usageOf } from '@switchyard/models';
import {
  DataNotFoundError,
  EXTRACT_DATA_TOOL,
  extractData,
  extractDataInputSchema,
} from '@switchyard/persistence';
import { sumUsages } from '@switchyard/state';
import { type OutputMaterial, materialSections } from '../output-material';

const SYSTEM = `[switchyard:output] You write the final answer to the user's request from the work
done in this turn (tool results below). Answer in Markdown, directly, without mentioning tools.`;

/** Reads of kept data one answer may make before it must answer from what it has. */
const MAX_EXTRACT_ROUNDS = 3;
/** Characters of one read put before the model (a whole 5 MB output would not fit its context). */
const EXTRACT_MAX_CHARS = 8_000;

/** What the answer read of the kept data, for the action's preparation. */
export interface DataRead {
  reference: string;
  path: string;
  error?: string;
}

/**
 * `output`: the Markdown answer, streamed piece by piece as it is generated. When the turn's
 * results include data kept whole (a preview in the action, the rest by reference: the material's
 * data catalogue), the model is offered `extract_data_by_path` and may read parts of it — up to
 * {@link MAX_EXTRACT_ROUNDS} times, each read bounded — before it answers.
 */
@Injectable()
export class MarkdownAnswerTool {
  constructor(
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  async write(
    material: OutputMaterial,
    emitToken: (text: string) => Promise<void>,
    signal: AbortSignal,
    runId: string,
  ): Promise<{ answer: string; usage: Usage; reads: DataRead[] }> {
    const messages: BaseMessage[] = [
      new SystemMessage(`${SYSTEM}\n\n${materialSections(material)}`),
      ...material.history.map((m) =>
        m.role === 'assistant'
          ? new AIMessage(m.content)
          : m.role === 'system'
            ? new SystemMessage(m.content)
            : new HumanMessage(m.content),
      ),
      new HumanMessage(material.prompt),
    ];
    const chat = this.models.chat({ role: 'output' });
    const usages: Usage[] = [];
    const reads: DataRead[] = [];
    let answer = '';
    for (let round = 0; ; round++) {
      // Offered while there is kept data and reads left; the last round must answer.
      const offer = material.catalogue !== '' && round < MAX_EXTRACT_ROUNDS;
      const model = offer ? chat.bindTools([{ type: 'function', function: EXTRACT_DATA_TOOL }]) : chat;
      let last: AIMessageChunk | undefined;
      try {
        const stream = await model.stream(messages, { signal });
        for await (const chunk of stream) {
          last = last ? last.concat(chunk) : chunk;
          const text = typeof chunk.content === 'string' ? chunk.content : '';
          if (text) {
            answer += text;
            await emitToken(text);
          }
        }
      } catch (err) {
        throw classifyLlmError(err);
      }
      usages.push(usageOf(last));
      const calls = offer ? (last?.tool_calls ?? []) : [];
      if (calls.length === 0) {
        return { answer, usage: sumUsages(usages), reads };
      }
      messages.push(new AIMessage({ content: last?.content ?? '', tool_calls: calls }));
      for (const [i, call] of calls.entries()) {
        const id = call.id || `extract_${round}_${i}`;
        messages.push(new ToolMessage({ tool_call_id: id, content: await this.read(runId, call, reads) }));
      }
    }
  }

  /** One read the model asked for, as the tool message it gets back (an error it can correct). */
  private async read(
    runId: string,
    call: { name: string; args: unknown },
    reads: DataRead[],
  ): Promise<string> {
    if (call.name !== EXTRACT_DATA_TOOL.name) {
      return `error: no tool "${call.name}" here; only ${EXTRACT_DATA_TOOL.name}`;
    }
    const args = extractDataInputSchema.safeParse(call.args);
    if (!args.success) {
      const why = args.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
      reads.push({
        reference: String((call.args as { reference?: unknown })?.reference ?? ''),
        path: '',
        error: why,
      });
      return `error: ${why}`;
    }
    try {
      const { value } = await extractData(this.ds, runId, args.data);
      reads.push({ reference: args.data.reference, path: args.data.path });
      const text = JSON.stringify(value) ?? 'null';
      return text.length > EXTRACT_MAX_CHARS
        ? `${text.slice(0, EXTRACT_MAX_CHARS)}… (cut at ${EXTRACT_MAX_CHARS} characters: read a narrower path)`
        : text;
    } catch (err) {
      if (err instanceof DataNotFoundError) {
        reads.push({ ...args.data, error: err.message });
        return `error: ${err.message}`;
      }
      throw err;
    }
  }
}
