import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { z } from 'zod';
import { type Action, PlannerResultSchema, type Todo } from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, invokeStructured } from '@switchyard/models';
import { sumUsages } from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';

/** Seed 001's reflection verdict. */
export const ReflectionSchema = z.object({
  conclusion: z.string().min(1),
  match: z.enum(['full', 'part', 'none']),
  is_finished: z.boolean(),
  is_sufficient: z.boolean(),
});

const SYSTEM = `[switchyard:reflection] You judge the results of the tool calls just made against the
user's task. Reply with one JSON object and nothing else: {"conclusion": "<one or two sentences>",
"match": "full" | "part" | "none", "is_finished": <the task can be answered now>,
"is_sufficient": <the results are enough for this step>}.`;

// One retry with the parse error fed back: a reply that still does not parse fails the step.
const PARSE_RETRIES = 1;

/** `reflection`: judges the latest tool results and updates the turn's todos; always hands back to the planner. */
@Controller()
export class ReflectionController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
  ) {}

  @NodeHandler({ name: 'reflection', description: 'Judges tool results against the task and the todos.' })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.reflect(input));
  }

  private async reflect({ state, signal }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    const actions = state.action_history[turn] ?? [];
    const { call, results } = latestToolRound(actions);
    const messages: BaseMessage[] = [
      new SystemMessage(SYSTEM),
      new HumanMessage(`Task: ${state.task_goals[turn] || state.prompts[turn]}`),
    ];
    if (call) {
      messages.push(
        new AIMessage({
          content: call.content,
          tool_calls: call.tool_calls.map((c) => ({
            id: c.id,
            name: c.name,
            args: c.args,
            type: 'tool_call' as const,
          })),
        }),
      );
      const pending = [...call.tool_calls];
      for (const r of results) {
        const idx = pending.findIndex((c) => c.name === r.node);
        const [tc] = idx >= 0 ? pending.splice(idx, 1) : [undefined];
        if (tc) {
          messages.push(
            new ToolMessage({
              content: r.error ? `error ${r.error.code}: ${r.error.message}` : JSON.stringify(r.result),
              tool_call_id: tc.id,
            }),
          );
        }
      }
    }
    const { value: v, usages } = await invokeStructured(this.models.chat(), messages, ReflectionSchema, {
      maxRetries: PARSE_RETRIES,
      signal,
      label: 'reflection',
    });
    return {
      preparation: `Judged ${results.length} tool result(s) of the latest planner step.`,
      summary: v.conclusion,
      result: v,
      relevance: v.match === 'full' ? 1 : v.match === 'part' ? 0.5 : 0,
      usage: sumUsages(usages),
      patch: todoUpdates(
        state.todos[turn] ?? [],
        turn,
        call?.tool_calls.map((c) => c.id) ?? [],
        results,
        v.match,
      ),
      next: ['planner'],
    };
  }
}

/** The latest planner action with tool calls, and the tool actions that answered it. */
function latestToolRound(actions: readonly Action[]) {
  for (let i = actions.length - 1; i >= 0; i--) {
    if (actions[i].node === 'planner') {
      const parsed = PlannerResultSchema.safeParse(actions[i].result);
      return {
        call: parsed.success ? parsed.data : undefined,
        results: actions.slice(i + 1).filter((a) => a.node !== 'reflection'),
      };
    }
  }
  return { call: undefined, results: [] as Action[] };
}

/** Marks the todos of the judged calls done (or failed, with the error kept in their history). */
function todoUpdates(
  todos: readonly Todo[],
  turn: number,
  callIds: string[],
  results: Action[],
  match: string,
) {
  const failed = new Map(results.filter((r) => r.error).map((r) => [r.node, r.error!.message]));
  return todos.flatMap((todo, i) => {
    if (!callIds.includes(todo.id) || todo.status !== 'in_progress') {
      return [];
    }
    const toolName = todo.content.split(' ')[0];
    const error = failed.get(toolName);
    const status = error || match === 'none' ? ('failed' as const) : ('done' as const);
    const value: Todo = {
      ...todo,
      status,
      ...(error ? { error_history: [...(todo.error_history ?? []), error] } : {}),
    };
    return [{ op: 'replace' as const, path: `/todos/${turn}/${i}`, value }];
  });
}
