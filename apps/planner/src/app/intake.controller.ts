import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { type JsonPatchOperation, type RuntimeState, describeUserContext } from '@switchyard/contracts';
import { type JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, invokeStructured } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime, taskTenant } from '@switchyard/worker';
import { UserProfileLoader } from './user-profile.loader';

// output_structure is optional so a reply of the older three-field shape still parses.
const IntakeReplySchema = z.object({
  task_goal: z.string().min(1),
  scenario: z.string().default(''),
  output_style: z.string().default(''),
  output_structure: z
    .array(
      z.object({
        id: z.string().min(1).optional(),
        expected: z.string().min(1),
        type: z.string().min(1).default('text'),
      }),
    )
    .max(50)
    .default([]),
});
type IntakeReply = z.infer<typeof IntakeReplySchema>;

const SYSTEM = `[switchyard:intake] You read the user's message at the start of a turn: what the user
wants (task_goal, one sentence), the kind of request (scenario, one or two words), how the answer
should read (output_style), and the parts a structured answer needs (output_structure, each with a
short id, what it must contain and its type: text, number, list, table or data; none when a plain
answer is enough).`;

// Only for models that take JSON from the prompt; the others get IntakeReplySchema natively.
const PROMPT_SHAPE = `{"task_goal": "<what the user wants, one sentence>",
"scenario": "<kind of request, one or two words>", "output_style": "<how the answer should read>",
"output_structure": [{"id": "<short id>", "expected": "<one part the answer must contain>", "type": "text|number|list|table|data"}]}.
Use [] for output_structure when a plain answer is enough.`;

// One retry with the parse error fed back: a reply that still does not parse fails the step.
const PARSE_RETRIES = 1;

/**
 * `intake`: opens the turn's understanding of the request. Loads the user's profile into
 * `user_context` once per thread (from run metadata `user_id`), and from one structured LLM call
 * writes the turn's task goal, the scenario, the output style and the output structure.
 */
@Controller()
export class IntakeController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(UserProfileLoader) private readonly profiles: UserProfileLoader,
  ) {}

  @NodeHandler({
    name: 'intake',
    description: 'Reads the user message and profile: task goal, scenario, output style and structure.',
  })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.intake(input));
  }

  private async intake({ state, signal, task }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    const prompt = state.prompts[turn];
    const loaded = await this.userContext(state, task.run_id, taskTenant(task));
    const userContext = loaded ?? state.user_context;
    const about = describeUserContext(userContext);
    const messages: BaseMessage[] = [
      new SystemMessage([SYSTEM, about].filter(Boolean).join('\n\n')),
      new HumanMessage(prompt),
    ];
    const { value, usages } = await invokeStructured(
      this.models.chat({ role: 'intake' }),
      messages,
      IntakeReplySchema,
      { maxRetries: PARSE_RETRIES, signal, label: 'intake', promptShape: PROMPT_SHAPE },
    );
    const files = state.origin_files.length > 0;
    const patch: JsonPatchOperation[] = [
      { op: 'replace', path: `/task_goals/${turn}`, value: value.task_goal },
      { op: 'replace', path: '/scenario', value: value.scenario },
      { op: 'replace', path: '/output_style', value: value.output_style },
      { op: 'replace', path: '/output_structure', value: outputStructure(value) },
    ];
    if (loaded) {
      patch.unshift({ op: 'replace', path: '/user_context', value: loaded });
    }
    const profileNote = loaded
      ? ` Loaded the profile of user "${String(loaded['user_id'])}".`
      : about
        ? " Used the thread's user context."
        : '';
    return {
      preparation: `Asked ${this.models.modelName} to read the prompt (${prompt.length} characters).${profileNote}`,
      summary: `Task goal: ${value.task_goal}`,
      result: value,
      usage: sumUsages(usages),
      patch,
      next: files ? ['preprocess', 'memory'] : ['memory'],
    };
  }

  /** `{user_id, ...profile}` when the thread has no user context yet and the run's user has a profile. */
  private async userContext(
    state: Readonly<RuntimeState>,
    runId: string,
    tenantId: string,
  ): Promise<Record<string, unknown> | null> {
    if (Object.keys(state.user_context).length > 0) {
      return null;
    }
    const found = await this.profiles.forRun(runId, tenantId);
    return found ? { ...found.profile, user_id: found.user_id } : null;
  }
}

/** The entries to fill at output time: ids made unique (`s1`, `s2`… when the model gave none), content empty. */
function outputStructure(
  reply: IntakeReply,
): { id: string; expected: string; content: null; type: string }[] {
  const seen = new Set<string>();
  return reply.output_structure.map((entry, i) => {
    let id = entry.id ?? `s${i + 1}`;
    while (seen.has(id)) {
      id = `${id}_${i + 1}`;
    }
    seen.add(id);
    return { id, expected: entry.expected, content: null, type: entry.type };
  });
}
