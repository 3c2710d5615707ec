import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { type Action, type PlannerResult, PlannerResultSchema, type ToolCall } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, classifyLlmError, usageOf } from '@switchyard/models';
import { NodeDirectory } from '@switchyard/platform';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';
import { RunAgentConfig } from './run-agent-config.service';

const SYSTEM = `[switchyard:planner] You plan the next step of an AI agent's work on the user's request.
Call one or more of the offered tools when they are needed (several calls run in parallel).
When the results so far are enough to answer, reply briefly without calling any tool: the answer
itself is written by the output step.`;

/**
 * `planner`: asks the LLM, with the registered tool nodes offered as native tools, what to do
 * next. Each tool call becomes one entry of `next` (its arguments stay in this action's result
 * for the tool to read) and a todo of the turn; a reply without tool calls means `output`.
 */
@Controller()
export class PlannerController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
    @Inject(RunAgentConfig) private readonly agents: RunAgentConfig,
  ) {}

  @NodeHandler({ name: 'planner', description: 'Chooses the next steps: tool calls, or the answer.' })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.plan(input));
  }

  private async plan({ state, signal, task }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    // The tools the run's agent allows (all registered ones by default), human nodes included.
    const agent = await this.agents.forRun(task.run_id);
    const tools = this.directory
      .list()
      .filter((n) => n.tool && (agent.tools === undefined || agent.tools.includes(n.name)));
    const messages = conversation(
      state.prompts[turn],
      state.task_goals[turn],
      state.action_history[turn] ?? [],
      agent.system_prompt,
    );
    const model = tools.length
      ? this.models.chat().bindTools(
          tools.map((t) => ({
            type: 'function' as const,
            function: { name: t.name, description: t.description, parameters: t.input_schema },
          })),
        )
      : this.models.chat();
    const reply = await model.invoke(messages, { signal }).catch((err: unknown) => {
      throw classifyLlmError(err);
    });
    const calls: ToolCall[] = (reply.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${turn}_${state.version}_${i}`,
      name: c.name,
      args: c.args,
    }));
    const result: PlannerResult = {
      content: typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content),
      tool_calls: calls,
    };
    const preparation = `Offered ${tools.length} tools (${tools.map((t) => t.name).join(', ') || 'none'}) to ${this.models.modelName} with ${messages.length} messages.`;
    if (calls.length === 0) {
      return { preparation, summary: 'Ready to answer.', result, usage: usageOf(reply), next: ['output'] };
    }
    return {
      preparation,
      summary: `Calling ${calls.map((c) => c.name).join(', ')}.`,
      result,
      usage: usageOf(reply),
      patch: calls.map((c) => ({
        op: 'add' as const,
        path: `/todos/${turn}/-`,
        value: { id: c.id, content: `${c.name} ${JSON.stringify(c.args)}`, status: 'in_progress' as const },
      })),
      next: calls.map((c) => c.name),
    };
  }
}

/** The turn so far as chat messages: each planner call followed by its tools' results. */
function conversation(
  prompt: string,
  goal: string,
  actions: readonly Action[],
  agentPrompt?: string,
): BaseMessage[] {
  const notes = actions
    .filter((a) => a.node === 'reflection' || a.node === 'memory')
    .map((a) => `- ${a.node}: ${a.summary}`);
  const system = [
    SYSTEM,
    agentPrompt ?? '',
    goal ? `Task goal: ${goal}` : '',
    notes.length ? `Notes so far:\n${notes.join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const messages: BaseMessage[] = [new SystemMessage(system), new HumanMessage(prompt)];
  let pending: PlannerResult['tool_calls'] = [];
  for (const a of actions) {
    if (a.node === 'planner') {
      const parsed = PlannerResultSchema.safeParse(a.result);
      pending = parsed.success ? [...parsed.data.tool_calls] : [];
      if (pending.length) {
        messages.push(
          new AIMessage({
            content: parsed.success ? parsed.data.content : '',
            tool_calls: pending.map((c) => ({
              id: c.id,
              name: c.name,
              args: c.args,
              type: 'tool_call' as const,
            })),
          }),
        );
      }
      continue;
    }
    const idx = pending.findIndex((c) => c.name === a.node);
    if (idx >= 0) {
      const [call] = pending.splice(idx, 1);
      const content = a.error ? `error ${a.error.code}: ${a.error.message}` : JSON.stringify(a.result);
      messages.push(new ToolMessage({ content, tool_call_id: call.id }));
    }
  }
  return messages;
}
