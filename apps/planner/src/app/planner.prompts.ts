import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import {
  CLIENT_TOOL,
  type Action,
  type PlannerResult,
  PlannerResultSchema,
  type RuntimeState,
  type Todo,
  toolFunctionName,
} from '@switchyard/contracts';
import type { PlannerBackground } from './planner-context';
import type { BuiltinOutputTool } from './planner.policy';
import type { OfferedFunction } from './tool-catalog';

// What the planner's LLM calls are told: the system prompts and the messages they are built into.

const PLAN_SYSTEM = `[switchyard:plan] You break the user's request into todos before any work starts:
each with an id, the task, the ids of the todos that must be completed first (dependencies), the
tools it suggests, a priority (larger runs sooner), execution tips, success criteria and how often
it may be retried (max_retry). Dependencies must not form a cycle. Give no todos when the request
needs no plan (it can be answered directly or in one step).`;

// Only for models that take JSON from the prompt; the others get PlanReplySchema natively.
export const PLAN_PROMPT_SHAPE = `{"todos": [{"id": "1", "task": "<what to do>",
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

// Dependency results quoted to a todo's call are cut to this many characters each.
const QUOTE_MAX = 2_000;

/** The output tools the final call may choose between, as functions. */
export const OUTPUT_FUNCTIONS: Record<BuiltinOutputTool, OfferedFunction> = {
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

const goalOf = (state: Readonly<RuntimeState>): string =>
  state.task_goals[state.turn] ? `Task goal: ${state.task_goals[state.turn]}` : '';

const joined = (parts: string[]): string => parts.filter(Boolean).join('\n\n');

/** The planning call's system prompt: the agent's prompt, the background, the goal, the tools. */
export function planSystem(
  state: Readonly<RuntimeState>,
  background: PlannerBackground,
  agentPrompt: string | undefined,
  tools: string[],
): string {
  return joined([
    PLAN_SYSTEM,
    agentPrompt ?? '',
    ...background.sections,
    goalOf(state),
    tools.length ? `Tools:\n${tools.join('\n')}` : 'No tools are available.',
  ]);
}

/** A todo's call's system prompt: its task, tips, suggested tools, earlier errors, dependency results. */
export function todoSystem(
  state: Readonly<RuntimeState>,
  background: PlannerBackground,
  agentPrompt: string | undefined,
  todos: readonly Todo[],
  todo: Todo,
): string {
  const deps = todo.dependencies
    .map((id) => todos.find((t) => t.id === id))
    .filter((t): t is Todo => t !== undefined)
    .map((t) => `- ${t.id} (${t.task}): ${quote(t.completion_details?.output)}`);
  const errors = todo.error_history.map(
    (e) => `- attempt ${e.attempt} with ${e.tool_used || '-'}: ${e.error}`,
  );
  return joined([
    TODO_SYSTEM,
    agentPrompt ?? '',
    ...background.sections,
    goalOf(state),
    `Current todo ${todo.id}: ${todo.task}`,
    todo.execution_tips ? `Tips: ${todo.execution_tips}` : '',
    todo.success_criteria ? `Done when: ${todo.success_criteria}` : '',
    todo.suggested_tools.length ? `Suggested tools: ${todo.suggested_tools.join(', ')}` : '',
    deps.length ? `Results of the todos it depends on:\n${deps.join('\n')}` : '',
    errors.length ? `Earlier attempts failed:\n${errors.join('\n')}` : '',
  ]);
}

/** The system prompt of the call that picks the output tool (it may have to fill arguments). */
export function finalSystem(
  state: Readonly<RuntimeState>,
  background: PlannerBackground,
  todos: readonly Todo[],
  content: string,
): string {
  return joined([
    FINAL_SYSTEM,
    ...background.sections,
    goalOf(state),
    state.output_structure.length
      ? `Output structure: ${JSON.stringify(state.output_structure.map((s) => ({ id: s.id, expected: s.expected })))}`
      : '',
    outcomeOf(todos, content),
  ]);
}

function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text;
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

/** The system prompt, the thread's earlier messages within the budget, then the current prompt. */
export function withHistory(system: string, background: PlannerBackground, prompt: string): BaseMessage[] {
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

/**
 * What one planner action contributes to the conversation, kept per action: a turn's actions are
 * the same objects from one planner call to the next (the state is shared structurally), so each
 * is parsed and turned into messages once, not at every later call of the turn (O(turn) a call).
 * Messages are values: LangGraph passes the same instances to every call too.
 */
const plannerTurns = new WeakMap<Action, { calls: PlannerResult['tool_calls']; message?: AIMessage }>();
const toolMessages = new WeakMap<Action, ToolMessage>();

function plannerTurnOf(a: Action): { calls: PlannerResult['tool_calls']; message?: AIMessage } {
  let said = plannerTurns.get(a);
  if (!said) {
    const parsed = PlannerResultSchema.safeParse(a.result);
    const calls = parsed.success ? parsed.data.tool_calls : [];
    said = {
      calls,
      message: calls.length
        ? new AIMessage({
            content: parsed.success ? parsed.data.content : '',
            tool_calls: calls.map((c) => {
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
          })
        : undefined,
    };
    plannerTurns.set(a, said);
  }
  return said;
}

/** A tool action's result as the answer to call `callId` (kept per action for that call). */
function toolMessageOf(a: Action, callId: string): ToolMessage {
  const kept = toolMessages.get(a);
  if (kept?.tool_call_id === callId) {
    return kept;
  }
  const content = a.error
    ? `error ${a.error.code}: ${a.error.message}`
    : a.node === CLIENT_TOOL.name && typeof a.result === 'string'
      ? a.result
      : JSON.stringify(a.result);
  const message = new ToolMessage({ content, tool_call_id: callId });
  toolMessages.set(a, message);
  return message;
}

/** The turn so far as chat messages: each planner call followed by its tools' results. */
export function conversation(
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
      const said = plannerTurnOf(a);
      pending = [...said.calls];
      if (said.message) {
        messages.push(said.message);
      }
      continue;
    }
    const idx = pending.findIndex((c) => c.name === a.node);
    if (idx >= 0) {
      const [call] = pending.splice(idx, 1);
      messages.push(toolMessageOf(a, call.id));
    }
  }
  return messages;
}
