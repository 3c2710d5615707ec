import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import {
  type PlannerResult,
  type RuntimeState,
  type Todo,
  TodoSchema,
  type ToolCall,
  type Usage,
  clientRequestOf,
} from '@switchyard/contracts';
import type { JetStreamContext } from '@switchyard/jetstream';
import { ChatModels, classifyLlmError, invokeStructured, usageOf } from '@switchyard/models';
import { NodeDirectory } from '@switchyard/platform';
import { completeTodo, failBlockedTodos, nextRetryAt, readyTodos, sumUsages } from '@switchyard/state';
import { type NodeInput, type NodeOutput, NodeHandler, NodeRuntime, taskTenant } from '@switchyard/worker';
import { type PlanReply, PlanReplySchema, todosOfPlan } from './plan.schema';
import { PlannerConfig } from './planner.config';
import { type PlannerBackground, plannerBackground } from './planner-context';
import {
  type Mode,
  adhocTodos,
  closingOutputTool,
  dispatchedTodo,
  finishReason,
  isBuiltinOutputTool,
  latestVerdict,
  outputCandidates,
  presentTodo,
  presentedWith,
  retryWaitMs,
  settleHumanAnswers,
  todosPatch,
  turnMode,
  uniqueCalls,
} from './planner.policy';
import {
  OUTPUT_FUNCTIONS,
  PLAN_PROMPT_SHAPE,
  conversation,
  finalSystem,
  planSystem,
  todoSystem,
  withHistory,
} from './planner.prompts';
import { TenantCollections } from './tenant-collections.loader';
import { type RunContext, RunAgentConfig } from './run-agent-config.service';
import { type OfferedFunction, ToolCatalog } from './tool-catalog';

// Parse failures of the planning call get one more chance with the error fed back.
const PLAN_PARSE_RETRIES = 1;

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
      const closing = closingOutputTool(run.agent.output_tools);
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
    const patch = todosPatch(turn, before, step.todos);
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
    const system = planSystem(state, background, run.agent.system_prompt, catalog.describe());
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
        const wait = retryWaitMs(retryAt, now, this.config.maxRetryWaitMs);
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
        const own = uniqueCalls(reply.calls, todo.id, seen);
        if (own.length) {
          calls.push(...own);
          step.todos[idx] = dispatchedTodo(todo, own);
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
    return this.finish(state, step, catalog, run, signal, finishReason(step.todos), contents.join('\n'));
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
    const system = todoSystem(state, background, run.agent.system_prompt, todos, todo);
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
    step.todos.push(...adhocTodos(step.todos, calls));
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
    const candidates = outputCandidates(run.agent.output_tools, external);
    let outputTools = candidates.length ? candidates.slice(0, 1) : ['output'];
    if (clientRequestOf(state).response_format) {
      // The client asked for JSON (response_format): the structured output tool writes it.
      step.notes.push('The request has a response_format: answering with output_structured.');
      return this.toOutput(step, reason, content, ['output_structured']);
    }
    if (candidates.length > 1 || external.has(outputTools[0])) {
      const turn = state.turn;
      const system = finalSystem(state, step.background, step.todos, content);
      const fns = candidates.flatMap((t) => {
        const fn = isBuiltinOutputTool(t) ? OUTPUT_FUNCTIONS[t] : catalog.outputFunction(t);
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
    step.todos.push(presentTodo(step.todos, call));
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
