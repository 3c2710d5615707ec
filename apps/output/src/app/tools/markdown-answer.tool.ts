import { Inject, Injectable } from '@nestjs/common';
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
} from '@langchain/core/messages';
import type { Usage } from '@switchyard/contracts';
import { ChatModels, classifyLlmError, usageOf } from '@switchyard/models';
import { type OutputMaterial, materialSections } from '../output-material';

const SYSTEM = `[switchyard:output] You write the final answer to the user's request from the work
done in this turn (tool results below). Answer in Markdown, directly, without mentioning tools.`;

/** `output`: the Markdown answer, streamed piece by piece as it is generated. */
@Injectable()
export class MarkdownAnswerTool {
  constructor(@Inject(ChatModels) private readonly models: ChatModels) {}

  async write(
    material: OutputMaterial,
    emitToken: (text: string) => Promise<void>,
    signal: AbortSignal,
  ): Promise<{ answer: string; usage: Usage }> {
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
    let answer = '';
    let last: AIMessageChunk | undefined;
    try {
      const stream = await this.models.chat({ role: 'output' }).stream(messages, { signal });
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
    return { answer, usage: usageOf(last) };
  }
}
