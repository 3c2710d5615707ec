import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import {
  ASK_USER,
  CLIENT_TOOL,
  type Action,
  type JsonPatchOperation,
  type PlannerResult,
  PlannerResultSchema,
  type RuntimeState,
  type Todo,
  TodoSchema,
  type ToolCall,
  type Usage,
  clientRequestOf,
  toolFunctionName,
} from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, classifyLlmError, invokeStructured, usageOf } from '@switchyard/models';
import { NodeDirectory } from '@switchyard/platform';
import {
  allSettled,
  completeTodo,
  failBlockedTodos,
  nextRetryAt,
  readyTodos,
  sumUsages,
} from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime, taskTenant } from '@switchyard/worker';
import { type PlanReply, PlanReplySchema, todosOfPlan } from './plan.schema';
import { PlannerConfig } from './planner.config';
import { type PlannerBackground, plannerBackground } from './planner-context';
import { TenantCollections } from './tenant-collections.loader';
import { type RunContext, RunAgentConfig } from './run-agent-config.service';
import { type OfferedFunction, ToolCatalog } from './tool-catalog';

const PLAN_SYSTEM = `[switchyard:plan] You break the user's request into todos before any work starts:
each with an id, the task, the ids of the todos that must be completed first (dependencies), the
tools it suggests, a priority (larger runs sooner), execution tips, success criteria and how often
it may be retried (max_retry). Dependencies must not form a cycle. Give no todos when the request
needs no plan (it can be answered directly or in one step).`;

// Only for models that take JSON from the prompt; the others get PlanReplySchema natively.
const PLAN_PROMPT_SHAPE = `{"todos": [{"id": "1", "task": "<what to do>",
"dependencies": ["<ids of todos that must be completed first>"], "suggested_tools": ["<tool names>"],
"priority": 5, "execution_tips": "<hints>", "success_criteria": "<when it is done>", "max_retry": 3}]}.
Reply {"todos": []} when the request needs no plan.`;

const ADHOC_SYSTEM = `[switchyard:planner] You plan the next step of an AI agent's work on the user's request.
Call one or more of the offered tools when they are needed (several calls run in parallel).
When the results so far are enough to answer, reply briefly without calling any tool: the answer
itself is written by the output step.`;

const TODO_SYSTEM = `[switchyard:planner] You carry out one todo of the plan for the user's request.
Call the offered tool(s) this todo needs (several calls run in parallel). When it needs no tool,
reply with the todo's result as text.`;

const FINAL_SYSTEM = `[switchyard:planner] The work on the user's request is done. Choose how the
answer is presented: call exactly one of the offered functions.`;

// Parse failures of the planning call get one more chance with the error fed back.
const PLAN_PARSE_RETRIES = 1;
// Dependency results quoted to a todo's call are cut to this many characters each.
const QUOTE_MAX = 2_000;
const RETRY_MARGIN_MS = 5;

/** The output tools the final call may choose between, as functions. */
const OUTPUT_FUNCTIONS: Record<string, OfferedFunction> = {
  output: {
    type: 'function',
    function: {
      name: 'output',
      description: 'Write the answer as Markdown text.',
      parameters: { type: 'object', properties: {} },
    },
  },
  output_structured: {
    type: 'function',
    function: {
      name: 'output_structured',
      description: "Fill the turn's output structure (a structured answer with named parts).",
      parameters: { type: 'object', properties: {} },
    },
  },
};

type Mode = NonNullable<PlannerResult['mode']>;

/** What one step decided, before it becomes the action. */
interface StepPlan {
  todos: Todo[];
  usages: Usage[];
  notes: string[];
  mode: Mode;
  /** What the calls know besides the prompt: the user, memory, files, collections, the conversation. */
  background: PlannerBackground;
}

/**
 * `planner`: keeps the turn's todo list and decides the next step with the LLM, the run's tools
 * offered as native functions. The first step of a turn asks for an upfront plan; with one, each
 * step works on the ready todos (dependencies completed, past their retry time; by priority,
 * then critical path), one tool-calling call per todo, in parallel. Without one, each step is one
 * call over the turn's conversation and its tool calls become todos. When everything is settled
 * or nothing can progress, it hands over to `output`.
 */
@Controller()
export class PlannerController {
  constructor(
    @Inject(NodeRuntime) private readonly runtime: NodeRuntime,
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
    @Inject(RunAgentConfig) private readonly agents: RunAgentConfig,
    @Inject(PlannerConfig) private readonly config: PlannerConfig,
    @Inject(TenantCollections) private readonly collections: TenantCollections,
  ) {}

  @NodeHandler({ name: 'planner', description: 'Chooses the next steps: tool calls, or the answer.' })
  handle(@Payload() data: unknown, @Ctx() ctx: JetStreamContext): Promise<void> {
    return this.runtime.execute(data, ctx, (input) => this.plan(input));
  }

  private async plan({ state, signal, task }: NodeInput): Promise<NodeOutput> {
    const turn = state.turn;
    const run = await this.agents.forRun(task.run_id, taskTenant(task));
    const client = clientRequestOf(state);
    const catalog = ToolCatalog.build(this.directory.list(), {
      allowed: run.agent.tools,
      outputAllowed: run.agent.output_tools,
      tenantId: run.tenant_id,
      clientTools: client.client_tools,
    });
    const actions = state.action_history[turn] ?? [];
    const before = (state.todos[turn] ?? []).map((t) => TodoSchema.parse(t));
    const retrievalOffered = catalog.names.includes('retrieval');
    const background = plannerBackground(state, {
      historyTokens: this.config.historyTokens,
      retrievalOffered,
      extractOffered: catalog.names.includes('extract_data_by_path'),
      collections: retrievalOffered ? await this.collections.forTenant(run.tenant_id) : [],
    });
    const step: StepPlan = {
      background,
      todos: settleHumanAnswers(before, actions, new Date()),
      usages: [],
      notes: [
        `Offered ${catalog.tools.length} tools (${catalog.names.join(', ') || 'none'}) to ${this.models.modelName}.`,
      ],
      mode: turnMode(actions),
    };
    if (background.omitted > 0) {
      step.notes.push(
        `Showed the newest ${background.history.length} earlier messages; left out ${background.omitted} older ones (history budget ${this.config.historyTokens} tokens).`,
      );
    }
    if (catalog.skipped.length) {
      step.notes.push(
        `Left out ${catalog.skipped.join(', ')}: their function names clash with another tool.`,
      );
    }
    const presented = presentedWith(actions);
    if (presented) {
      // An output tool of the registry presented the answer: the output step closes the turn, with
      // the agent's first built-in output tool (output when it names none).
      const closing = run.agent.output_tools?.find((t) => t in OUTPUT_FUNCTIONS) ?? 'output';
      return {
        preparation: step.notes.join(' '),
        summary: `Presented with ${presented}: writing the closing answer with ${closing}.`,
        result: {
          content: '',
          tool_calls: [],
          output_tools: [closing],
          mode: step.mode,
        } satisfies PlannerResult,
        next: ['output'],
      };
    }
    if (!actions.some((a) => a.node === 'planner') && step.todos.length === 0) {
      const plan = await this.upfrontPlan(state, step.background, catalog, run, signal);
      step.usages.push(...plan.usages);
      step.todos = todosOfPlan(plan.value);
      step.mode = step.todos.length ? 'plan' : 'adhoc';
      step.notes.push(
        step.todos.length
          ? `Planned ${step.todos.length} todos: ${step.todos.map((t) => t.id).join(', ')}.`
          : 'No upfront plan: tool calls become todos as they come.',
      );
    }
    const out =
      step.mode === 'plan'
        ? await this.planStep(state, step, catalog, run, signal)
        : await this.adhocStep(state, step, catalog, run, signal);
    const patch: JsonPatchOperation[] =
      JSON.stringify(step.todos) === JSON.stringify(before)
        ? []
        : [{ op: 'replace', path: `/todos/${turn}`, value: step.todos }];
    return {
      ...out,
      preparation: step.notes.join(' '),
      usage: sumUsages(step.usages),
      ...(patch.length ? { patch } : {}),
    };
  }

  /** The planning call: `{"todos": [...]}` (an empty list means no upfront plan). */
  private async upfrontPlan(
    state: Readonly<RuntimeState>,
    background: PlannerBackground,
    catalog: ToolCatalog,
    run: RunContext,
    signal: AbortSignal,
  ): Promise<{ value: PlanReply; usages: Usage[] }> {
    const tools = catalog.describe();
    const system = [
      PLAN_SYSTEM,
      run.agent.system_prompt ?? '',
      ...background.sections,
      state.task_goals[state.turn] ? `Task goal: ${state.task_goals[state.turn]}` : '',
      tools.length ? `Tools:\n${tools.join('\n')}` : 'No tools are available.',
    ]
      .filter(Boolean)
      .join('\n\n');
    const { value, usages } = await invokeStructured(
      this.models.chat({ role: 'planner' }),
      withHistory(system, background, state.prompts[state.turn]),
      PlanReplySchema,
      { maxRetries: PLAN_PARSE_RETRIES, signal, label: 'plan', promptShape: PLAN_PROMPT_SHAPE },
    );
    return { value, usages };
  }

  /** A step of a planned turn: dispatch the ready todos, wait for a retry, or finish. */
  private async planStep(
    state: Readonly<RuntimeState>,
    step: StepPlan,
    catalog: ToolCatalog,
    run: RunContext,
    signal: AbortSignal,
  ): Promise<Pick<NodeOutput, 'summary' | 'result' | 'next'>> {
    const verdict = latestVerdict(state.action_history[state.turn] ?? []);
    if (verdict?.is_finished && verdict.is_sufficient) {
      step.notes.push('Reflection found the goal met.');
      return this.finish(state, step, catalog, run, signal, 'The goal is met');
    }
    const contents: string[] = [];
    const calls: ToolCall[] = [];
    // Todos answered without a tool may unblock others: keep going until a tool is needed.
    for (;;) {
      let now = new Date();
      step.todos = failBlockedTodos(step.todos, now);
      let ready = readyTodos(step.todos, now);
      const retryAt = ready.length === 0 ? nextRetryAt(step.todos, now) : undefined;
      if (retryAt && calls.length === 0) {
        // A small margin: timers may fire a millisecond before the clock reaches retry_after.
        const wait = Math.min(
          retryAt.getTime() - now.getTime() + RETRY_MARGIN_MS,
          this.config.maxRetryWaitMs,
        );
        step.notes.push(`Waited ${wait} ms for a retry.`);
        await sleep(wait, undefined, { signal });
        now = new Date();
        ready = readyTodos(step.todos, now);
        if (ready.length === 0) {
          return {
            summary: 'Waiting for a todo whose retry is not due yet.',
            result: { content: '', tool_calls: [], mode: 'plan' } satisfies PlannerResult,
            next: ['planner'],
          };
        }
      }
      if (ready.length === 0) {
        break;
      }
      const picked = ready.slice(0, this.config.maxParallel);
      const replies = await Promise.all(
        picked.map((t) => this.callForTodo(state, step, t, catalog, run, signal)),
      );
      const seen = new Set(calls.map((c) => c.id));
      picked.forEach((todo, i) => {
        const reply = replies[i];
        step.usages.push(reply.usage);
        const idx = step.todos.findIndex((t) => t.id === todo.id);
        const own = reply.calls.map((c) => (seen.has(c.id) ? { ...c, id: `${c.id}_${todo.id}` } : c));
        own.forEach((c) => seen.add(c.id));
        if (own.length) {
          calls.push(...own);
          step.todos[idx] = {
            ...todo,
            status: 'processing',
            retry_after: null,
            call_ids: [...todo.call_ids, ...own.map((c) => c.id)],
          };
        } else {
          step.todos[idx] = completeTodo(todo, {
            now: new Date(),
            tool_used: 'planner',
            execution_time: reply.seconds,
            output: reply.content,
          });
        }
        if (reply.content) {
          contents.push(reply.content);
        }
      });
      if (calls.length) {
        const byTodo = picked.filter((t) => step.todos.find((x) => x.id === t.id)?.status === 'processing');
        return {
          summary: `Todo ${byTodo.map((t) => t.id).join(', ')}: calling ${calls.map((c) => c.name).join(', ')}.`,
          result: { content: contents.join('\n'), tool_calls: calls, mode: 'plan' } satisfies PlannerResult,
          next: calls.map((c) => c.name),
        };
      }
    }
    const failed = step.todos.filter((t) => t.status === 'failed').length;
    const done = step.todos.filter((t) => t.status === 'completed').length;
    const reason = allSettled(step.todos)
      ? `All todos are settled (${done} completed, ${failed} failed)`
      : `Nothing more can progress (${done} completed, ${failed} failed, ${step.todos.length - done - failed} open)`;
    return this.finish(state, step, catalog, run, signal, reason, contents.join('\n'));
  }

  /** One tool-calling call for one todo: its task, tips, suggested tools, earlier errors, dependency results. */
  private async callForTodo(
    state: Readonly<RuntimeState>,
    { todos, background }: Pick<StepPlan, 'todos' | 'background'>,
    todo: Todo,
    catalog: ToolCatalog,
    run: RunContext,
    signal: AbortSignal,
  ): Promise<{ calls: ToolCall[]; content: string; usage: Usage; seconds: number }> {
    const turn = state.turn;
    const deps = todo.dependencies
      .map((id) => todos.find((t) => t.id === id))
      .filter((t): t is Todo => t !== undefined)
      .map((t) => `- ${t.id} (${t.task}): ${quote(t.completion_details?.output)}`);
    const errors = todo.error_history.map(
      (e) => `- attempt ${e.attempt} with ${e.tool_used || '-'}: ${e.error}`,
    );
    const system = [
      TODO_SYSTEM,
      run.agent.system_prompt ?? '',
      ...background.sections,
      state.task_goals[turn] ? `Task goal: ${state.task_goals[turn]}` : '',
      `Current todo ${todo.id}: ${todo.task}`,
      todo.execution_tips ? `Tips: ${todo.execution_tips}` : '',
      todo.success_criteria ? `Done when: ${todo.success_criteria}` : '',
      todo.suggested_tools.length ? `Suggested tools: ${todo.suggested_tools.join(', ')}` : '',
      deps.length ? `Results of the todos it depends on:\n${deps.join('\n')}` : '',
      errors.length ? `Earlier attempts failed:\n${errors.join('\n')}` : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    const started = Date.now();
    const reply = await this.invoke(
      withHistory(system, background, state.prompts[turn]),
      catalog.functions(),
      signal,
    );
    return {
      calls: callsOf(reply, catalog, `call_${state.version}_${todo.id}`),
      content: textOf(reply),
      usage: usageOf(reply),
      seconds: (Date.now() - started) / 1000,
    };
  }

  /** A step of an unplanned turn: one call over the conversation so far; its tool calls become todos. */
  private async adhocStep(
    state: Readonly<RuntimeState>,
    step: StepPlan,
    catalog: ToolCatalog,
    run: RunContext,
    signal: AbortSignal,
  ): Promise<Pick<NodeOutput, 'summary' | 'result' | 'next'>> {
    const turn = state.turn;
    const messages = conversation(
      state.prompts[turn],
      state.task_goals[turn],
      state.action_history[turn] ?? [],
      step.background,
      run.agent.system_prompt,
    );
    const reply = await this.invoke(messages, catalog.functions(), signal);
    step.usages.push(usageOf(reply));
    const calls = callsOf(reply, catalog, `call_${turn}_${state.version}`);
    const content = textOf(reply);
    if (calls.length === 0) {
      return this.finish(state, step, catalog, run, signal, 'Ready to answer', content);
    }
    const taken = new Set(step.todos.map((t) => t.id));
    let n = step.todos.length;
    for (const c of calls) {
      do {
        n += 1;
      } while (taken.has(String(n)));
      taken.add(String(n));
      // The model decides on retries itself in this mode (it sees the error), so no automatic retry.
      step.todos.push(
        TodoSchema.parse({
          id: String(n),
          task: `${c.name} ${JSON.stringify(c.args)}`,
          status: 'processing',
          suggested_tools: [c.name],
          max_retry: 0,
          call_ids: [c.id],
        }),
      );
    }
    return {
      summary: `Calling ${calls.map((c) => c.name).join(', ')}.`,
      result: { content, tool_calls: calls, mode: 'adhoc' } satisfies PlannerResult,
      next: calls.map((c) => c.name),
    };
  }

  /**
   * The last step: the output tools present the answer. Built-in ones (`output`,
   * `output_structured`) are the output node's: `next: ['output']` with the chosen ones. An output
   * tool of the registry (an MCP tool typed `output`) is called like any tool, with the arguments
   * the model gives it, filed under a todo of its own; once it ran, the next planner step hands
   * over to `output` for the closing message (presentedWith). With more than one candidate, or an
   * external one that needs arguments, one call offering them as functions decides.
   */
  private async finish(
    state: Readonly<RuntimeState>,
    step: StepPlan,
    catalog: ToolCatalog,
    run: RunContext,
    signal: AbortSignal,
    reason: string,
    content = '',
  ): Promise<Pick<NodeOutput, 'summary' | 'result' | 'next'>> {
    const external = new Set(catalog.outputs.map((o) => o.name));
    const candidates = run.agent.output_tools?.length
      ? run.agent.output_tools.filter((t) => t in OUTPUT_FUNCTIONS || external.has(t))
      : ['output', ...external];
    let outputTools = candidates.length ? candidates.slice(0, 1) : ['output'];
    if (clientRequestOf(state).response_format) {
      // The client asked for JSON (response_format): the structured output tool writes it.
      step.notes.push('The request has a response_format: answering with output_structured.');
      return this.toOutput(step, reason, content, ['output_structured']);
    }
    if (candidates.length > 1 || external.has(outputTools[0])) {
      const turn = state.turn;
      const system = [
        FINAL_SYSTEM,
        ...step.background.sections,
        state.task_goals[turn] ? `Task goal: ${state.task_goals[turn]}` : '',
        state.output_structure.length
          ? `Output structure: ${JSON.stringify(state.output_structure.map((s) => ({ id: s.id, expected: s.expected })))}`
          : '',
        outcomeOf(step.todos, content),
      ]
        .filter(Boolean)
        .join('\n\n');
      const fns = candidates.flatMap((t) => {
        const fn = t in OUTPUT_FUNCTIONS ? OUTPUT_FUNCTIONS[t] : catalog.outputFunction(t);
        return fn ? [fn] : [];
      });
      const reply = await this.invoke(withHistory(system, step.background, state.prompts[turn]), fns, signal);
      step.usages.push(usageOf(reply));
      const calls = callsOf(reply, catalog, `call_${turn}_${state.version}_out`).filter((c) =>
        candidates.includes(c.name),
      );
      const presenter = calls.find((c) => external.has(c.name));
      step.notes.push(
        `Offered the output tools ${candidates.join(', ')}; chose ${calls.map((c) => c.name).join(', ') || 'none'}.`,
      );
      if (presenter) {
        return this.present(step, reason, content, presenter);
      }
      const chosen = [...new Set(calls.map((c) => c.name))];
      outputTools = chosen.length ? chosen : ['output'];
    }
    return this.toOutput(step, reason, content, outputTools);
  }

  private toOutput(
    step: StepPlan,
    reason: string,
    content: string,
    outputTools: string[],
  ): Pick<NodeOutput, 'summary' | 'result' | 'next'> {
    return {
      summary: `${reason}: answering with ${outputTools.join(', ')}.`,
      result: { content, tool_calls: [], output_tools: outputTools, mode: step.mode } satisfies PlannerResult,
      next: ['output'],
    };
  }

  /** An external output tool presents the answer: a tool call filed under a todo of its own. */
  private present(
    step: StepPlan,
    reason: string,
    content: string,
    call: ToolCall,
  ): Pick<NodeOutput, 'summary' | 'result' | 'next'> {
    const taken = new Set(step.todos.map((t) => t.id));
    let id = 'present';
    for (let n = 2; taken.has(id); n++) {
      id = `present_${n}`;
    }
    step.todos.push(
      TodoSchema.parse({
        id,
        task: `Present the answer with ${call.name}`,
        status: 'processing',
        suggested_tools: [call.name],
        max_retry: 0,
        call_ids: [call.id],
      }),
    );
    return {
      summary: `${reason}: presenting the answer with ${call.name}.`,
      result: {
        content,
        tool_calls: [call],
        output_tools: [call.name],
        mode: step.mode,
      } satisfies PlannerResult,
      next: [call.name],
    };
  }

  private async invoke(
    messages: BaseMessage[],
    fns: OfferedFunction[],
    signal: AbortSignal,
  ): Promise<AIMessageChunk> {
    const chat = this.models.chat({ role: 'planner' });
    const model = fns.length ? chat.bindTools(fns) : chat;
    return model.invoke(messages, { signal }).catch((err: unknown) => {
      throw classifyLlmError(err);
    });
  }
}

function callsOf(reply: AIMessageChunk, catalog: ToolCatalog, fallbackId: string): ToolCall[] {
  return (reply.tool_calls ?? []).map((c, i) =>
    catalog.toolCall(c.name, c.id || `${fallbackId}_${i}`, c.args as Record<string, unknown>),
  );
}

const textOf = (reply: AIMessageChunk): string =>
  typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);

function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text;
}

/** The turn's mode, as its first planner step decided it (a turn without a recorded mode is ad hoc). */
function turnMode(actions: readonly Action[]): Mode {
  const first = actions.find((a) => a.node === 'planner');
  const parsed = first ? PlannerResultSchema.safeParse(first.result) : undefined;
  return parsed?.success && parsed.data.mode === 'plan' ? 'plan' : 'adhoc';
}

const BUILTIN_OUTPUT_TOOLS = new Set(Object.keys(OUTPUT_FUNCTIONS));

/**
 * The registry output tool that presented this turn's answer: the latest planner step called it
 * as its output tool and its action came back (success or error: either way the turn closes).
 */
function presentedWith(actions: readonly Action[]): string | undefined {
  const p = actions.map((a) => a.node).lastIndexOf('planner');
  if (p < 0) {
    return undefined;
  }
  const parsed = PlannerResultSchema.safeParse(actions[p].result);
  const tool = parsed.success
    ? parsed.data.output_tools?.find(
        (t) => !BUILTIN_OUTPUT_TOOLS.has(t) && parsed.data.tool_calls.some((c) => c.name === t),
      )
    : undefined;
  return tool && actions.slice(p + 1).some((a) => a.node === tool) ? tool : undefined;
}

/** What the work came to, for the call that picks the output tool (it may have to fill arguments). */
function outcomeOf(todos: readonly Todo[], content: string): string {
  const done = todos
    .filter((t) => t.status === 'completed' && t.completion_details)
    .map((t) => `- ${t.task}: ${quote(t.completion_details?.output)}`);
  return [
    done.length ? `Results of the work:\n${done.join('\n')}` : '',
    content ? `Notes: ${quote(content)}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Reflection's verdict on the latest tool round, when it came after the latest planner step. */
function latestVerdict(
  actions: readonly Action[],
): { is_finished?: boolean; is_sufficient?: boolean } | undefined {
  for (let i = actions.length - 1; i >= 0; i--) {
    if (actions[i].node === 'reflection') {
      return actions[i].result as { is_finished?: boolean; is_sufficient?: boolean } | undefined;
    }
    if (actions[i].node === 'planner') {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Answers of human nodes (`ask_user`, the client's functions) go straight back to the planner (no
 * reflection): the todo that asked is completed with the answer (the k-th answer of a node answers
 * its k-th call).
 */
function settleHumanAnswers(todos: Todo[], actions: readonly Action[], now: Date): Todo[] {
  const p = actions.map((a) => a.node).lastIndexOf('planner');
  if (p < 0) {
    return todos;
  }
  const parsed = PlannerResultSchema.safeParse(actions[p].result);
  let result = todos;
  for (const node of HUMAN_NODES) {
    const asked = parsed.success ? parsed.data.tool_calls.filter((c) => c.name === node) : [];
    const answers = actions.slice(p + 1).filter((a) => a.node === node);
    answers.forEach((a, k) => {
      const call = asked[k];
      const idx = call
        ? result.findIndex((t) => t.call_ids.includes(call.id) && t.status === 'processing')
        : -1;
      if (idx >= 0) {
        result = result.slice();
        result[idx] = completeTodo(result[idx], {
          now,
          tool_used: node === CLIENT_TOOL.name ? clientFunctionOf(call) : node,
          execution_time: (Date.parse(a.finished_at) - Date.parse(a.started_at)) / 1000,
          output: a.result,
        });
      }
    });
  }
  return result;
}

const HUMAN_NODES = [ASK_USER.name, CLIENT_TOOL.name] as const;

/** The client function a `client_tool` call names. */
function clientFunctionOf(call: ToolCall): string {
  const args = CLIENT_TOOL.argsSchema.safeParse(call.args);
  return args.success ? args.data.name : CLIENT_TOOL.name;
}

/** The system prompt, the thread's earlier messages within the budget, then the current prompt. */
function withHistory(system: string, background: PlannerBackground, prompt: string): BaseMessage[] {
  return [
    new SystemMessage(system),
    // A system message mid-conversation is refused by some providers (Anthropic): shown as a note.
    ...background.history.map((m) =>
      m.role === 'assistant'
        ? new AIMessage(m.content)
        : new HumanMessage(m.role === 'user' ? m.content : `(system note) ${m.content}`),
    ),
    new HumanMessage(prompt),
  ];
}

/** The turn so far as chat messages: each planner call followed by its tools' results. */
function conversation(
  prompt: string,
  goal: string,
  actions: readonly Action[],
  background: PlannerBackground,
  agentPrompt?: string,
): BaseMessage[] {
  // Recalled memory is in the background; the memory action's summary would repeat it.
  const notes = actions.filter((a) => a.node === 'reflection').map((a) => `- ${a.node}: ${a.summary}`);
  const system = [
    ADHOC_SYSTEM,
    agentPrompt ?? '',
    ...background.sections,
    goal ? `Task goal: ${goal}` : '',
    notes.length ? `Notes so far:\n${notes.join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const messages = withHistory(system, background, prompt);
  let pending: PlannerResult['tool_calls'] = [];
  for (const a of actions) {
    if (a.node === 'planner') {
      const parsed = PlannerResultSchema.safeParse(a.result);
      pending = parsed.success ? [...parsed.data.tool_calls] : [];
      if (pending.length) {
        messages.push(
          new AIMessage({
            content: parsed.success ? parsed.data.content : '',
            tool_calls: pending.map((c) => {
              // A client function is shown to the model under its own name and arguments.
              const client =
                c.name === CLIENT_TOOL.name ? CLIENT_TOOL.argsSchema.safeParse(c.args) : undefined;
              return {
                id: c.id,
                name: client?.success ? client.data.name : toolFunctionName(c.name),
                args: client?.success ? client.data.arguments : c.args,
                type: 'tool_call' as const,
              };
            }),
          }),
        );
      }
      continue;
    }
    const idx = pending.findIndex((c) => c.name === a.node);
    if (idx >= 0) {
      const [call] = pending.splice(idx, 1);
      const content = a.error
        ? `error ${a.error.code}: ${a.error.message}`
        : a.node === CLIENT_TOOL.name && typeof a.result === 'string'
          ? a.result
          : JSON.stringify(a.result);
      messages.push(new ToolMessage({ content, tool_call_id: call.id }));
    }
  }
  return messages;
}
