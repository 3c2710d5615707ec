import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { type JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, invokeStructured } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';

const IntakeReplySchema = z.object({
  task_goal: z.string().min(1),
  scenario: z.string().default(''),
  output_style: z.string().default(''),
});

const SYSTEM = `[switchyard:intake] You read the user's message at the start of a turn.
Reply with one JSON object and nothing else: {"task_goal": "<what the user wants, one sentence>",
"scenario": "<kind of request, one or two words>", "output_style": "<how the answer should read>"}.`;

// One retry with the parse error fed back: a reply that still does not parse fails the step.
const PARSE_RETRIES = 1;

/** `intake`: turns the prompt into the turn's task goal, scenario and output style. */
@Controller()
export class IntakeController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
  ) {}

  @NodeHandler({ name: 'intake', description: 'Reads the user message: task goal, scenario, output style.' })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.intake(input));
  }

  private async intake({ state, signal }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    const prompt = state.prompts[turn];
    const messages: BaseMessage[] = [new SystemMessage(SYSTEM), new HumanMessage(prompt)];
    const { value, usages } = await invokeStructured(this.models.chat(), messages, IntakeReplySchema, {
      maxRetries: PARSE_RETRIES,
      signal,
      label: 'intake',
    });
    const files = state.origin_files.length > 0;
    return {
      preparation: `Asked ${this.models.modelName} to read the prompt (${prompt.length} characters).`,
      summary: `Task goal: ${value.task_goal}`,
      result: value,
      usage: sumUsages(usages),
      patch: [
        { op: 'replace', path: `/task_goals/${turn}`, value: value.task_goal },
        { op: 'replace', path: '/scenario', value: value.scenario },
        { op: 'replace', path: '/output_style', value: value.output_style },
      ],
      next: files ? ['preprocess', 'memory'] : ['memory'],
    };
  }
}
