import { Inject, Injectable, Logger } from '@nestjs/common';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { type Usage, ZERO_USAGE } from '@switchyard/contracts';
import { ChatModels, usageOf } from '@switchyard/models';

const SYSTEM = `[switchyard:title] Name this conversation from the user's first request: a short title,
at most eight words, no quotes, no trailing punctuation. Reply with the title only.`;

const MAX_TITLE_CHARS = 80;

/** The thread's title, asked for once (with the thread's first answer). */
@Injectable()
export class TitleGenerator {
  private readonly logger = new Logger(TitleGenerator.name);

  constructor(@Inject(ChatModels) private readonly models: ChatModels) {}

  async generate(
    prompt: string,
    goal: string,
    signal: AbortSignal,
    log: Record<string, unknown>,
  ): Promise<{ title: string; usage: Usage; note: string }> {
    const fallback = shorten(goal || prompt);
    try {
      const reply = await this.models
        .chat({ role: 'title' })
        .invoke(
          [new SystemMessage(SYSTEM), new HumanMessage(goal ? `${prompt}\n\nTask goal: ${goal}` : prompt)],
          {
            signal,
          },
        );
      const title = shorten(
        (typeof reply.content === 'string' ? reply.content : '').replace(/^[\s#"'`*]+|[\s"'`*.]+$/g, ''),
      );
      return title
        ? { title, usage: usageOf(reply), note: 'generated the thread title' }
        : {
            title: fallback,
            usage: usageOf(reply),
            note: 'the title reply was empty: title taken from the request',
          };
    } catch (err) {
      if (signal.aborted) {
        throw err;
      }
      // A title is a label, not the answer: the run keeps its answer and names the thread from the request.
      const message = (err as Error).message;
      this.logger.warn({ ...log, msg: `title generation failed, title taken from the request: ${message}` });
      return {
        title: fallback,
        usage: { ...ZERO_USAGE },
        note: `title call failed (${message}): title taken from the request`,
      };
    }
  }
}

function shorten(text: string): string {
  const line = text.split('\n')[0].trim();
  return line.length > MAX_TITLE_CHARS ? `${line.slice(0, MAX_TITLE_CHARS - 3)}...` : line;
}
