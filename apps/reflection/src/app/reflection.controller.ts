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
import {
  type Action,
  type JsonPatchOperation,
  type RuntimeState,
  type Todo,
  TodoSchema,
  type Usage,
  toolFunctionName,
} from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, invokeStructured } from '@switchyard/models';
import { completeTodo, recordFailedAttempt, sumUsages } from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime } from '@switchyard/worker';
import { ReflectionConfig } from './reflection.config';
import { type TodoGroup, errorsOf, groupByTodo, latestToolRound, secondsOf, toolsOf } from './tool-round';

/** Seed 001's reflection verdict. */
export const ReflectionSchema = z.object({
  conclusion: z.string().min(1),
  match: z.enum(['full', 'part', 'none']),
  is_finished: z.boolean(),
  is_sufficient: z.boolean(),
});
type Verdict = z.infer<typeof ReflectionSchema>;
type Context = NonNullable<Action['context']>[number];

const SYSTEM = `[switchyard:reflection] You judge the results of the tool calls just made against the
todo they were made for and the user's task: a conclusion (one or two sentences), how well the
results fulfil the todo (match: full, part or none), whether the whole task can be answered now
(is_finished) and whether the results are enough for this todo (is_sufficient).`;

// Only for models that take JSON from the prompt; the others get ReflectionSchema natively.
const PROMPT_SHAPE = `{"conclusion": "<one or two sentences>", "match": "full" | "part" | "none"
(how well the results fulfil the todo), "is_finished": <the whole task can be answered now>,
"is_sufficient": <the results are enough for this todo>}.`;

// One retry with the parse error fed back: a reply that still does not parse fails the step.
const PARSE_RETRIES = 1;
const RELEVANCE = { full: 1, part: 0.5, none: 0 } as const;

/** What reflection concluded about one todo's results in this round. */
interface Judgement {
  group: TodoGroup;
  verdict?: Verdict;
  usages: Usage[];
  /** The todo after this round (absent: the calls were filed under no todo). */
  todo?: Todo;
}

/**
 * `reflection`: judges the latest tool results todo by todo. A failed tool call is a failed
 * attempt of its todo (retried after a back-off until max_retry, then failed) without asking the
 * model; successful results get one structured LLM verdict per todo, which completes the todo
 * (`full`/`part`) or counts as a failed attempt (`none`). Always hands back to the planner.
 */
@Controller()
export class ReflectionController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(ReflectionConfig) private readonly config: ReflectionConfig,
  ) {}

  @NodeHandler({ name: 'reflection', description: 'Judges tool results against the task and the todos.' })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.reflect(input));
  }

  private async reflect({ state, signal }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    const todos = (state.todos[turn] ?? []).map((t) => TodoSchema.parse(t));
    const round = latestToolRound(state.action_history[turn] ?? []);
    const groups = groupByTodo(todos, round);
    const judgements = await Promise.all(groups.map((g) => this.judge(state, g, signal)));

    const patch: JsonPatchOperation[] = judgements
      .filter((j) => j.todo && j.group.todo && j.todo !== j.group.todo)
      .map((j) => ({ op: 'replace' as const, path: `/todos/${turn}/${j.group.todoIndex}`, value: j.todo }));
    const result = summarise(judgements);
    const judged = judgements.filter((j) => j.verdict);
    return {
      preparation: `Judged ${round.length} tool result(s) of the latest planner step for ${groups.length} todo(s); asked ${this.models.modelName} ${judged.length} time(s).`,
      summary: result.conclusion,
      result,
      relevance: judgements.length
        ? judgements.reduce((s, j) => s + RELEVANCE[j.verdict?.match ?? 'none'], 0) / judgements.length
        : 0,
      context: judgements.flatMap(contextOf),
      usage: sumUsages(judgements.flatMap((j) => j.usages)),
      ...(patch.length ? { patch } : {}),
      next: ['planner'],
    };
  }

  /** One todo's results: failures settle without the model, successes get a verdict. */
  private async judge(
    state: Readonly<RuntimeState>,
    group: TodoGroup,
    signal: AbortSignal,
  ): Promise<Judgement> {
    const now = new Date();
    const open = group.todo?.status === 'processing' ? group.todo : undefined;
    const successes = group.results.filter((r) => !r.action.error);
    const seconds = group.results.reduce((s, r) => s + secondsOf(r.action), 0);
    if (successes.length === 0) {
      const todo = open
        ? recordFailedAttempt(open, {
            now,
            tool_used: toolsOf(group.results),
            error: errorsOf(group.results),
            execution_time: seconds,
            backoff: this.config.backoff,
          })
        : group.todo;
      return { group, usages: [], todo };
    }
    const { value: verdict, usages } = await invokeStructured(
      this.models.chat({ role: 'reflection' }),
      messagesFor(state, group),
      ReflectionSchema,
      { maxRetries: PARSE_RETRIES, signal, label: 'reflection', promptShape: PROMPT_SHAPE },
    );
    let todo = group.todo;
    if (open && verdict.match === 'none') {
      todo = recordFailedAttempt(open, {
        now,
        tool_used: toolsOf(successes),
        error: `unmatched_result: ${verdict.conclusion}`,
        execution_time: seconds,
        backoff: this.config.backoff,
      });
    } else if (open) {
      todo = completeTodo(open, {
        now,
        tool_used: toolsOf(successes),
        execution_time: successes.reduce((s, r) => s + secondsOf(r.action), 0),
        output: successes.length === 1 ? successes[0].action.result : successes.map((r) => r.action.result),
      });
    }
    return { group, verdict, usages, todo };
  }
}

/** The chat for one todo's verdict: the task, the todo, the calls and their results. */
function messagesFor(state: Readonly<RuntimeState>, group: TodoGroup): BaseMessage[] {
  const turn = state.turn;
  const todo = group.todo;
  const system = [
    SYSTEM,
    todo ? `Todo ${todo.id}: ${todo.task}` : '',
    todo?.success_criteria ? `Done when: ${todo.success_criteria}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const messages: BaseMessage[] = [
    new SystemMessage(system),
    new HumanMessage(`Task: ${state.task_goals[turn] || state.prompts[turn]}`),
  ];
  const answered = group.results.filter((r) => r.call);
  if (answered.length) {
    messages.push(
      new AIMessage({
        content: '',
        tool_calls: answered.map((r) => ({
          id: r.call!.id,
          name: toolFunctionName(r.call!.name),
          args: r.call!.args,
          type: 'tool_call' as const,
        })),
      }),
    );
    for (const r of answered) {
      const a = r.action;
      messages.push(
        new ToolMessage({
          content: a.error ? `error ${a.error.code}: ${a.error.message}` : JSON.stringify(a.result),
          tool_call_id: r.call!.id,
        }),
      );
    }
  }
  const unpaired = group.results.filter((r) => !r.call);
  if (unpaired.length) {
    messages.push(
      new HumanMessage(
        `Results:\n${unpaired.map((r) => `- ${r.action.node}: ${r.action.error ? `error ${r.action.error.message}` : JSON.stringify(r.action.result)}`).join('\n')}`,
      ),
    );
  }
  return messages;
}

/** The action's result: the verdict itself for one todo, otherwise a combined one (failures count as `none`). */
function summarise(judgements: readonly Judgement[]): Verdict & {
  todos: { id: string; status: string; match?: Verdict['match'] }[];
} {
  const todos = judgements
    .filter((j) => j.todo)
    .map((j) => ({
      id: j.todo!.id,
      status: j.todo!.status,
      ...(j.verdict ? { match: j.verdict.match } : {}),
    }));
  const judged = judgements.filter((j) => j.verdict).map((j) => j.verdict!);
  const failures = judgements.filter((j) => !j.verdict);
  if (judged.length === 1 && failures.length === 0) {
    return { ...judged[0], todos };
  }
  const failureText = failures.map((j) => {
    const what = j.todo ? `todo ${j.todo.id}` : 'a call';
    const next =
      j.todo?.status === 'pending' ? `retry ${j.todo.retry} after ${j.todo.retry_after}` : 'failed';
    return `${what} (${toolsOf(j.group.results)}) failed: ${errorsOf(j.group.results)}; ${next}.`;
  });
  const conclusion =
    [...judged.map((v) => v.conclusion), ...failureText].join(' ') || 'There were no tool results to judge.';
  const matches = [...judged.map((v) => v.match), ...failures.map(() => 'none' as const)];
  const match =
    matches.length && matches.every((m) => m === 'full')
      ? 'full'
      : matches.some((m) => m !== 'none')
        ? 'part'
        : 'none';
  const retrying = failures.some((j) => j.todo?.status === 'pending');
  return {
    conclusion,
    match,
    is_finished: judged.length > 0 && !retrying && judged.every((v) => v.is_finished),
    is_sufficient: judged.length > 0 && !retrying && judged.every((v) => v.is_sufficient),
    todos,
  };
}

/** Context entries: useful results for the answer, the conclusion, and failures. */
function contextOf(j: Judgement): Context[] {
  const label = j.todo ? `Todo ${j.todo.id} (${j.todo.task})` : toolsOf(j.group.results);
  if (!j.verdict) {
    const next =
      j.todo?.status === 'pending'
        ? `will be retried after ${j.todo.retry_after}`
        : j.todo
          ? `failed after ${j.todo.retry + 1} attempt(s)`
          : 'failed';
    return [
      {
        type: 'text',
        content: `${label}: ${errorsOf(j.group.results)}; ${next}.`,
        important: false,
        usage_type: 'analysis',
      },
    ];
  }
  const entries: Context[] = [
    { type: 'text', content: `${label}: ${j.verdict.conclusion}`, important: false, usage_type: 'analysis' },
  ];
  if (j.verdict.match !== 'none') {
    entries.push({
      type: 'data',
      content: {
        ...(j.todo ? { todo: j.todo.id, task: j.todo.task } : {}),
        tools: toolsOf(j.group.results),
        results: j.group.results.filter((r) => !r.action.error).map((r) => r.action.result),
      },
      important: j.verdict.match === 'full',
      usage_type: 'output',
    });
  }
  return entries;
}
