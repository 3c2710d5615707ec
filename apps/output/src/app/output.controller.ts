import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { AIMessageChunk } from '@langchain/core/messages';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Action } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, classifyLlmError, usageOf } from '@switchyard/models';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';

const SYSTEM = `[switchyard:output] You write the final answer to the user's request from the work
done in this turn (tool results below). Answer in Markdown, directly, without mentioning tools.`;

/** `output`: streams the final answer as `token` events while the LLM generates it; ends the run. */
@Controller()
export class OutputController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
  ) {}

  @NodeHandler({ name: 'output', description: 'Writes and streams the final answer.' })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.answer(input));
  }

  private async answer({ state, signal, emitToken }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    const actions = state.action_history[turn] ?? [];
    const evidence = actions
      .filter(isEvidence)
      .map((a) => `- ${a.node}: ${a.error ? `error: ${a.error.message}` : JSON.stringify(a.result)}`);
    const system = [
      SYSTEM,
      state.output_style ? `Style: ${state.output_style}` : '',
      evidence.length ? `Results:\n${evidence.join('\n')}` : 'No tool was used.',
    ]
      .filter(Boolean)
      .join('\n\n');
    let answer = '';
    let last: AIMessageChunk | undefined;
    try {
      const stream = await this.models
        .chat()
        .stream([new SystemMessage(system), new HumanMessage(state.prompts[turn])], { signal });
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
    const title = titleOf(state.task_goals[turn] || state.prompts[turn]);
    return {
      preparation: `Wrote the answer from ${evidence.length} result(s) with ${this.models.modelName}.`,
      summary: `Answered (${answer.length} characters).`,
      result: { answer, title },
      usage: usageOf(last),
      relevance: 1,
      patch: [{ op: 'add', path: '/chat_history/-', value: { role: 'assistant', content: answer } }],
      next: [],
    };
  }
}

const NON_EVIDENCE = new Set(['start', 'intake', 'planner', 'reflection', 'memory', 'output']);
const isEvidence = (a: Action): boolean => !NON_EVIDENCE.has(a.node);

function titleOf(text: string): string {
  const line = text.split('\n')[0].trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
