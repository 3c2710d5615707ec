import { Injectable } from '@nestjs/common';
import {
  type ComponentContext,
  type ComponentEffect,
  getVariableValue,
  templateSegments,
} from '@switchyard/graph';
import type { ComponentRunner } from '../component-runner';
import { streamedText } from './agent.component';
import { messageValueText } from './message-value';

/** RAGFlow's Message: streams the rendered content, each literal piece and each reference value a token. */
@Injectable()
export class MessageComponent implements ComponentRunner {
  readonly names: readonly string[] = ['Message'];

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const contents = ctx.component.params['content'] as string[];
    // RAGFlow picks one of the contents at random.
    const template = contents[Math.floor(Math.random() * contents.length)];
    let text = '';
    let streamed = '';
    const downloads: unknown[] = [];
    for (const segment of templateSegments(template)) {
      let piece: string;
      if ('text' in segment) {
        piece = segment.text;
      } else {
        // A made file (DocGenerator's `download`) is a download of the message, not its text.
        const value = messageValueText(getVariableValue(ctx.scope, segment.ref));
        piece = value.text;
        downloads.push(...value.downloads);
      }
      // An Agent's tool notes stream as thinking: `<think>…</think>` in the answer, not in `content`.
      const shown = ('ref' in segment ? streamedText(ctx.scope, segment.ref) : undefined) ?? piece;
      if (shown) {
        text += piece;
        streamed += shown;
        // Each tool note is a token of its own, as RAGFlow streams it.
        for (const token of shown.split(/(<think>[\s\S]*?<\/think>)/).filter(Boolean)) {
          await ctx.emitToken(token);
        }
      }
    }
    return {
      outputs: { content: text, ...(downloads.length ? { downloads } : {}) },
      ...(streamed !== text ? { streamed } : {}),
      summary: `Message: ${text.length} characters`,
    };
  }
}
