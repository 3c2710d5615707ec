import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { Runnable } from '@langchain/core/runnables';
import { z } from 'zod';
import {
  type AgentFunction,
  type AgentParams,
  AgentParamsSchema,
  type AgentToolEntry,
  GraphErrorCode,
  GraphException,
  type LlmRetryPolicy,
  type VariableScope,
  canvasHistory,
  citationPrompt,
  historyWindow,
  llmRetryPolicy,
  templateText,
  promptsWithHistory,
  pyStr,
  renderTemplate,
  retrievalFunction,
  subAgentFunction,
  subAgentUserPrompt,
  streamedInto,
  structuredOutputPrompt,
  structuredOutputSchema,
  toolRunningNote,
  type ComponentContext,
  type ComponentEffect,
} from '@switchyard/graph';
import {
  MCP_CALL_SUBJECT,
  type NodeRegistration,
  TOOL_CALL_SUBJECT,
  type ToolRpcRequest,
  MCP_NODE_PREFIX,
  type McpCallReply,
  McpCallReplySchema,
  type McpCallRequest,
} from '@switchyard/contracts';
import { JetStreamConnection, encodeJson } from '@switchyard/jetstream';
import {
  ChatModels,
  LlmCallException,
  classifyLlmError,
  collectUsage,
  invokeStructured,
} from '@switchyard/models';
import { NodeDirectory } from '@switchyard/platform';
import type { ComponentRunner } from '../component-runner';
import { GRAPH_TOOL_FACTORIES, type GraphTool, type GraphToolFactory } from '../graph-tool';
import { RetrievalComponent } from './retrieval.component';

const CHAT_ROLE = 'graph';
// Sub-agents nest as the canvas draws them; a bound keeps a malformed DSL from recursing away.
const MAX_AGENT_DEPTH = 8;
// The output that keeps an Agent's streamed text with its tool notes as `<think>…</think>`.
export const STREAMED_OUTPUT = '_streamed';

const textOf = (m: BaseMessage): string =>
  typeof m.content === 'string' ? m.content : JSON.stringify(m.content);

/** One Agent (or LLM, or sub-agent) to answer. */
interface AgentCall {
  /** `Agent:X`, or `Agent:X-->name` for a sub-agent (RAGFlow's tool component id). */
  id: string;
  params: Record<string, unknown>;
  /** A sub-agent's call arguments (`user_prompt`, `reasoning`, `context`). */
  args?: Record<string, unknown>;
  /** Feeding a Message: tool notes are streamed (and so part of `content`), as in RAGFlow. */
  streaming: boolean;
  depth: number;
  /** Appended to the system prompt (RAGFlow's structured-output instruction). */
  systemSuffix?: string;
}

interface AgentAnswer {
  content: string;
  /** `content` with the tool notes inside `<think>…</think>` (what the Message streams). */
  streamed: string;
  /** Chunks the Agent's Retrieval tools found (they make later citing components cite). */
  chunks: number;
}

/** A tool as the loop uses it: what the model is offered and how a call runs. */
// An MCP tool call's budget (the server's own timeout applies inside it too).
const TOOL_CALL_TIMEOUT_MS = 60_000;
// The service whose tools graph Agents may call (the catalogue).
const TOOL_EXECUTOR = 'tool-executor';

interface LoopTool {
  fn: AgentFunction;
  call(args: Record<string, unknown>): Promise<string>;
}

/** The text of an Agent's `_streamed` output, for a reference to its `content`. */
export function streamedText(scope: VariableScope, ref: string): string | undefined {
  const at = ref.indexOf('@');
  if (at < 0 || ref.slice(at + 1) !== 'content') {
    return undefined;
  }
  const value = scope.outputs[ref.slice(0, at)]?.[STREAMED_OUTPUT];
  return typeof value === 'string' ? value : undefined;
}

/** Whether an earlier component of this turn found chunks (a Retrieval, an Agent's tool). */
function chunksFound(ctx: ComponentContext): boolean {
  return ctx.ran.some((id) => {
    const out = ctx.scope.outputs[id];
    return (Array.isArray(out?.['json']) && out['json'].length > 0) || Number(out?.['_chunks'] ?? 0) > 0;
  });
}

/**
 * RAGFlow's LLM and Agent components. Without tools one model call; with tools native function
 * calling through langchain (`bindTools` on the registry's chat model) in RAGFlow's loop: at most
 * `max_rounds + 1` rounds, each running every call the model asked for at once and answering
 * with its text (a failing tool answers with its error), then one last call told
 * `Exceed max rounds`. Tools: sub-agents (their own prompts and tools, recursively), Retrieval as
 * `search_my_dateset`, and whatever the factories under GRAPH_TOOL_FACTORIES build.
 */
@Injectable()
export class AgentComponent implements ComponentRunner {
  readonly names: readonly string[] = ['LLM', 'Agent'];
  private readonly factories: ReadonlyMap<string, GraphToolFactory>;

  constructor(
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(RetrievalComponent) private readonly retrieval: RetrievalComponent,
    @Optional() @Inject(GRAPH_TOOL_FACTORIES) factories?: readonly GraphToolFactory[],
    // MCP tools: the tenant's servers (the node registry) and the tool-executors holding them.
    @Optional() @Inject(NodeDirectory) private readonly directory?: NodeDirectory,
    @Optional() @Inject(JetStreamConnection) private readonly nats?: JetStreamConnection,
  ) {
    this.factories = new Map((factories ?? []).map((f) => [f.componentName, f]));
  }

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    const c = ctx.component;
    const schema = structuredOutputSchema(c.params);
    if (schema) {
      // A structured answer is never streamed (RAGFlow neither): the Message reads it when it is whole.
      const call = { id: c.id, params: c.params, streaming: false, depth: 0 };
      const { value: structured, usage } = await collectUsage(() => this.structured(ctx, call, schema));
      return {
        outputs: { content: '', structured },
        usage,
        summary: `${c.name}: a structured answer (${Object.keys(schema['properties'] as object).length} properties)`,
      };
    }
    const streaming = streamedInto(ctx.canvas, c.id).length > 0;
    const { value, usage } = await collectUsage(() =>
      this.answer(ctx, { id: c.id, params: c.params, streaming, depth: 0 }),
    );
    return {
      outputs: {
        content: value.content,
        ...(value.streamed !== value.content ? { [STREAMED_OUTPUT]: value.streamed } : {}),
        ...(value.chunks ? { _chunks: value.chunks } : {}),
      },
      usage,
      summary: `${c.name}: ${value.content.length} characters`,
    };
  }

  /**
   * RAGFlow's structured output: the JSON Schema's instruction appended to the system prompt, the
   * reply parsed as JSON (and asked for natively here, so a model that follows only its API's JSON
   * mode still answers in JSON). Without tools the call is retried on an unparseable reply
   * (`max_retries` more times); with tools the tool loop runs first and a reply that does not
   * parse is reformatted by one more call, as RAGFlow's Agent does.
   */
  private async structured(
    ctx: ComponentContext,
    call: AgentCall,
    schema: Record<string, unknown>,
  ): Promise<unknown> {
    const p = this.agentParams(call);
    const instruction = structuredOutputPrompt(schema);
    const ask = (messages: BaseMessage[], maxRetries: number) =>
      invokeStructured(this.models.chat({ role: CHAT_ROLE }), messages, z.unknown(), {
        maxRetries,
        signal: ctx.signal,
        label: 'structured',
        jsonSchema: schema,
      }).then((r) => r.value);
    const retries = typeof p.max_retries === 'number' ? p.max_retries : 0;
    if (!(p.tools ?? []).length) {
      return ask(this.messages(ctx, { ...call, systemSuffix: instruction }, p.cite, false), retries);
    }
    // RAGFlow's Agent appends it on a line of its own (_append_system_prompt).
    const answer = await this.answer(ctx, { ...call, systemSuffix: `\n${instruction}` });
    const parsed = parseJsonAnswer(answer.content);
    if (parsed !== undefined) {
      return parsed;
    }
    return ask(
      [
        new SystemMessage(`${instruction}\nIMPORTANT: Output ONLY valid JSON. No markdown, no extra text.`),
        new HumanMessage(answer.content),
      ],
      retries,
    );
  }

  private async answer(ctx: ComponentContext, call: AgentCall): Promise<AgentAnswer> {
    const p = this.agentParams(call);
    const found = { chunks: 0 };
    const components = (p.tools ?? []).map((entry, i) => this.tool(ctx, call, entry, i, found));
    const tools = [...components, ...this.mcpTools(ctx, call, p, components.length)];
    const messages = this.messages(ctx, call, p.cite, tools.length > 0);
    const retry = llmRetryPolicy(call.params);
    if (!tools.length) {
      const reply = await this.invoke(messages, ctx.signal, undefined, retry);
      const content = textOf(reply);
      return { content, streamed: content, chunks: 0 };
    }
    const byName = new Map(tools.map((t) => [t.fn.name, t]));
    const model = this.models
      .chat({ role: CHAT_ROLE })
      .bindTools(tools.map((t) => ({ type: 'function' as const, function: t.fn })));
    let content = '';
    let streamed = '';
    for (let round = 0; round <= p.max_rounds; round++) {
      const reply = await this.invoke(messages, ctx.signal, model, retry);
      const text = textOf(reply);
      const calls = reply.tool_calls ?? [];
      if (!calls.length) {
        return { content: content + text, streamed: streamed + text, chunks: found.chunks };
      }
      if (call.streaming) {
        // RAGFlow streams the round's text and a note per call; without a Message it keeps neither.
        content += text;
        streamed += text;
        for (const tc of calls) {
          const note = toolRunningNote(tc.name);
          content += note;
          streamed += `<think>${note}</think>`;
        }
      }
      const withIds = calls.map((tc, i) => ({ ...tc, id: tc.id || `call_${round + 1}_${i}` }));
      const results = await Promise.all(withIds.map((tc) => this.callTool(byName, tc)));
      messages.push(new AIMessage({ content: '', tool_calls: withIds }));
      withIds.forEach((tc, i) =>
        messages.push(new ToolMessage({ content: results[i], tool_call_id: tc.id })),
      );
    }
    messages.push(new HumanMessage(`Exceed max rounds: ${p.max_rounds}`));
    // Streaming, RAGFlow asks once more with the tools offered; otherwise a plain call.
    const last = await this.invoke(messages, ctx.signal, call.streaming ? model : undefined, retry);
    const text = textOf(last);
    return { content: content + text, streamed: streamed + text, chunks: found.chunks };
  }

  private checkTools(ctx: ComponentContext, call: AgentCall): void {
    const p = this.agentParams(call);
    (p.tools ?? []).forEach((entry, i) => this.tool(ctx, call, entry, i, { chunks: 0 }));
    this.mcpTools(ctx, call, p, (p.tools ?? []).length);
  }

  /**
   * The MCP tools of an Agent (`mcp: [{mcp_id, tools: {<name>: <meta>}}]`), offered as
   * `<name>_<index>` after its component tools, as RAGFlow does. RAGFlow's `mcp_id` names a
   * server of its own; here the tool is the run's tenant's MCP server tool of that name (node
   * `mcp.<server>.<name>`), called through the tool-executor that holds the connection — so the
   * server is registered once (POST /v1/mcp-servers) and keeps its secrets there. A tool no
   * server of the tenant offers, or more than one does, fails the Agent naming it.
   */
  private mcpTools(ctx: ComponentContext, call: AgentCall, p: AgentParams, first: number): LoopTool[] {
    const out: LoopTool[] = [];
    let index = first;
    for (const entry of p.mcp ?? []) {
      const tools = (entry as { tools?: unknown } | null)?.tools;
      if (!tools || typeof tools !== 'object') {
        throw new GraphException(
          GraphErrorCode.ComponentFailed,
          `Agent ${call.id}: an mcp entry without a tools object`,
        );
      }
      for (const [name, meta] of Object.entries(
        tools as Record<string, { description?: unknown; inputSchema?: unknown }>,
      )) {
        const nodes = (this.directory?.list() ?? [])
          .filter(
            (n) =>
              n.tenant_id === ctx.tenantId &&
              n.name.startsWith(`${MCP_NODE_PREFIX}.`) &&
              n.name.split('.').slice(2).join('.') === name,
          )
          .map((n) => n.name);
        if (nodes.length !== 1) {
          throw new GraphException(
            GraphErrorCode.ComponentFailed,
            nodes.length === 0
              ? `Agent ${call.id}: MCP tool "${name}" is not offered by any MCP server of this tenant (register the server: POST /v1/mcp-servers)`
              : `Agent ${call.id}: MCP tool "${name}" is offered by more than one MCP server of this tenant (${nodes.join(', ')})`,
          );
        }
        const schema = meta?.inputSchema && typeof meta.inputSchema === 'object' ? meta.inputSchema : {};
        out.push({
          fn: {
            name: `${name}_${index}`,
            description: typeof meta?.description === 'string' ? meta.description : '',
            parameters: {
              type: 'object',
              properties: {},
              required: [],
              ...(schema as object),
            } as AgentFunction['parameters'],
          },
          call: (args) => this.callMcp(ctx, nodes[0], args),
        });
        index += 1;
      }
    }
    return out;
  }

  /** One MCP tool call through the tool-executor (MCP_CALL_SUBJECT); its text, or its error as text. */
  private callMcp(ctx: ComponentContext, node: string, args: Record<string, unknown>): Promise<string> {
    const request: McpCallRequest = {
      run_id: ctx.runId,
      node,
      args,
      timeout_ms: TOOL_CALL_TIMEOUT_MS,
      ...fairnessOf(ctx),
    };
    return this.requestTool(MCP_CALL_SUBJECT, request, `MCP tool ${node}`);
  }

  /**
   * A request to the tool-executors (core NATS request/reply); the reply's text, or its error as
   * text for the model to read. No answer at all (no tool-executor, NATS away) fails the
   * component as retryable, like a model call.
   */
  private async requestTool(subject: string, request: object, label: string): Promise<string> {
    let reply: McpCallReply;
    try {
      if (!this.nats) {
        throw new Error('no NATS connection in this process');
      }
      const msg = await this.nats.nc.request(subject, encodeJson(request), {
        timeout: TOOL_CALL_TIMEOUT_MS + 5_000,
      });
      reply = McpCallReplySchema.parse(JSON.parse(new TextDecoder().decode(msg.data)));
    } catch (err) {
      throw Object.assign(new Error(`${label}: ${(err as Error).message}`), { retryable: true });
    }
    return reply.ok ? reply.text : `${reply.code}: ${reply.message}`;
  }

  /** Switchyard's catalogue tools the tool-executors serve (not a tenant's MCP tools). */
  private catalogueEntries(): NodeRegistration[] {
    return (this.directory?.list() ?? []).filter(
      (n) =>
        n.tool &&
        n.tenant_id === undefined &&
        n.service === TOOL_EXECUTOR &&
        !n.name.includes('.') &&
        // It reads outputs a tool node kept whole; an Agent's tool calls keep none to read.
        n.name !== 'extract_data_by_path',
    );
  }

  private catalogueTool(name: string): NodeRegistration | undefined {
    return this.catalogueEntries().find((n) => n.name === name);
  }

  private catalogueNames(): string[] {
    return this.catalogueEntries().map((n) => n.name);
  }

  /**
   * A catalogue tool in an Agent's `tools` (`{component_name: "http_get"}`, say), offered as
   * `<tool>_<index>` with the catalogue's description and input schema, called through the
   * tool-executors (TOOL_CALL_SUBJECT) under the run's tenant, the tool's time budget and output
   * cap. Each call's idempotency key is the task's and the call's place in the loop, so a
   * retried component sends the same keys.
   */
  private catalogueLoopTool(ctx: ComponentContext, entry: NodeRegistration, index: number): LoopTool {
    const name = `${entry.name}_${index}`;
    let calls = 0;
    return {
      fn: {
        name,
        description: entry.description,
        parameters: { type: 'object', properties: {}, ...entry.input_schema } as AgentFunction['parameters'],
      },
      call: (args) => {
        const request: ToolRpcRequest = {
          run_id: ctx.runId,
          tool: entry.name,
          args,
          call_id: `${ctx.taskId}:${name}:${calls++}`,
          timeout_ms: TOOL_CALL_TIMEOUT_MS,
          ...fairnessOf(ctx),
        };
        return this.requestTool(TOOL_CALL_SUBJECT, request, `tool ${entry.name}`);
      },
    };
  }

  private agentParams(call: AgentCall): AgentParams {
    const parsed = AgentParamsSchema.safeParse(call.params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GraphException(
        GraphErrorCode.ComponentFailed,
        `Agent ${call.id}: param ${issue.path.join('.')}: ${issue.message}`,
      );
    }
    return parsed.data;
  }

  /** The system prompt and prompts rendered; a sub-agent's prompt built from its call. */
  private messages(ctx: ComponentContext, call: AgentCall, cite: boolean, hasTools: boolean): BaseMessage[] {
    const render = (text: unknown) => renderTemplate(ctx.scope, String(text ?? ''), templateText, false);
    const p = call.params;
    let system = render(p['sys_prompt']) + (call.systemSuffix ?? '');
    const citing = cite && chunksFound(ctx);
    if (citing) {
      system += citationPrompt();
    }
    // A streaming Agent with tools appends the guidelines once more (RAGFlow's
    // stream_output_with_tools_async does, on top of _prepare_prompt_variables), sub-agents excepted.
    if (citing && hasTools && call.streaming && !call.id.includes('-->')) {
      system += `\n${citationPrompt()}`;
    }
    const messages: BaseMessage[] = [];
    if (system) {
      messages.push(new SystemMessage(system));
    }
    const order = call.args ? subAgentUserPrompt(call.args) : undefined;
    const declared = Array.isArray(p['prompts'])
      ? (p['prompts'] as { role?: string; content?: string }[])
      : [];
    const prompts =
      order !== undefined
        ? [{ role: 'user', content: order }]
        : declared.length
          ? declared
          : [{ role: 'user', content: '{sys.query}' }];
    // The canvas history (RAGFlow's get_history(message_history_window_size), 13 by default)
    // before the prompts; the first prompt takes the place of this turn's query in it.
    const window =
      typeof p['message_history_window_size'] === 'number' ? p['message_history_window_size'] : 13;
    const conversation = promptsWithHistory(
      historyWindow(canvasHistory(ctx.scope.globals), ctx.resumes, window),
      prompts.map((m) => ({
        role: m.role === 'assistant' ? 'assistant' : 'user',
        content: render(m.content),
      })),
    );
    for (const m of conversation) {
      messages.push(m.role === 'assistant' ? new AIMessage(m.content) : new HumanMessage(m.content));
    }
    return messages;
  }

  /** The tool of `tools[index]`: a sub-agent, a Retrieval, or one a factory provides. */
  private tool(
    ctx: ComponentContext,
    call: AgentCall,
    entry: AgentToolEntry,
    index: number,
    found: { chunks: number },
  ): LoopTool {
    const params = entry.params ?? {};
    switch (entry.component_name) {
      case 'Agent': {
        if (call.depth + 1 >= MAX_AGENT_DEPTH) {
          throw new GraphException(
            GraphErrorCode.ComponentFailed,
            `Agent ${call.id}: sub-agents nest deeper than ${MAX_AGENT_DEPTH}`,
          );
        }
        const fn = subAgentFunction(entry, index);
        const id = `${call.id}-->${(entry.name ?? '').replace(/ /g, '_')}`;
        // Its own tools are checked now, as RAGFlow builds them when the canvas loads: a tool that
        // cannot run fails the Agent instead of becoming an answer the model reads.
        this.checkTools(ctx, { id, params, streaming: false, depth: call.depth + 1 });
        return {
          fn,
          call: async (args) => {
            const sub = await this.answer(ctx, { id, params, args, streaming: false, depth: call.depth + 1 });
            found.chunks += sub.chunks;
            return sub.content;
          },
        };
      }
      case 'Retrieval': {
        const retrievalParams = this.retrieval.params(`${call.id} tool ${index}`, params);
        return {
          fn: retrievalFunction(params, index),
          call: async (args) => {
            const query = renderTemplate(
              ctx.scope,
              args['query'] === undefined || args['query'] === null ? '' : pyStr(args['query']),
              (v) => (v === null || v === undefined ? '' : pyStr(v)),
              false,
            );
            const out = await this.retrieval.search(ctx.tenantId, ctx.scope, retrievalParams, query);
            found.chunks += out.found;
            return out.outputs.formalized_content;
          },
        };
      }
      default: {
        const factory = this.factories.get(entry.component_name);
        const catalogue = factory ? undefined : this.catalogueTool(entry.component_name);
        if (catalogue) {
          return this.catalogueLoopTool(ctx, catalogue, index);
        }
        if (!factory) {
          const known = ['Agent', 'Retrieval', ...this.factories.keys(), ...this.catalogueNames()].join(', ');
          throw new GraphException(
            GraphErrorCode.ComponentFailed,
            `Agent ${call.id}: tool ${index} is a ${entry.component_name} component, which is not available as a tool here (available: ${known})`,
          );
        }
        const tool: GraphTool = factory.create(
          { ...(entry.name ? { name: entry.name } : {}), params },
          index,
        );
        return {
          fn: {
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters as AgentFunction['parameters'],
          },
          call: (args) =>
            tool.call(args, {
              tenantId: ctx.tenantId,
              runId: ctx.runId,
              componentId: call.id,
              signal: ctx.signal,
              scope: ctx.scope,
            }),
        };
      }
    }
  }

  /** Runs one call the model made; a failure is the call's answer (RAGFlow answers with `str(e)`). */
  private async callTool(byName: ReadonlyMap<string, LoopTool>, tc: ToolCall): Promise<string> {
    const tool = byName.get(tc.name);
    try {
      if (!tool) {
        throw new Error(`LLM tool ${tc.name} does not exist`);
      }
      const args: unknown = tc.args;
      if (!args || typeof args !== 'object' || Array.isArray(args)) {
        throw new TypeError(`Tool arguments for ${tc.name} must be a JSON object`);
      }
      return await tool.call(args as Record<string, unknown>);
    } catch (err) {
      // A model call that may pass fails the component (it is retried); anything else is the answer.
      if ((err as { retryable?: unknown }).retryable === true) {
        throw err;
      }
      return (err as Error).message ?? String(err);
    }
  }

  /** One model call: the registry's chat model for role "graph" (the run's pin, else the default), metered. */
  private async invoke(
    messages: BaseMessage[],
    signal: AbortSignal,
    model: Runnable<BaseMessage[], AIMessageChunk> = this.models.chat({ role: CHAT_ROLE }),
    retry?: LlmRetryPolicy,
  ): Promise<AIMessage> {
    for (let call = 1; ; call++) {
      try {
        return (await model.invoke(messages, { signal })) as AIMessage;
      } catch (err) {
        const e = classifyLlmError(err);
        if (!retry || !e.retryable || signal.aborted) {
          throw e;
        }
        if (call >= retry.attempts) {
          // The canvas's count is absolute: the failure is final, no redelivery multiplies it.
          throw new LlmCallException(
            `${e.message} (${call} call${call === 1 ? '' : 's'}: max_retries ${retry.attempts - 1})`,
            e.code,
            false,
          );
        }
        await sleep(retry.delayMs, undefined, { signal });
      }
    }
  }
}

/** An answer as JSON, RAGFlow's way: what follows a `</think>` or a ```json fence; undefined when it does not parse. */
function parseJsonAnswer(text: string): unknown {
  const cleaned = text
    .replace(/^[\s\S]*<\/think>/, '')
    .replace(/^[\s\S]*```json/, '')
    .replace(/```\n*$/, '')
    .trim();
  try {
    return JSON.parse(cleaned);
  } catch {
    return undefined;
  }
}

/** Whose call it is, for the tool-executors' fair order of requests. */
function fairnessOf(ctx: ComponentContext): Pick<ToolRpcRequest, 'tenant_id' | 'priority'> {
  return { tenant_id: ctx.tenantId, ...(ctx.priority ? { priority: ctx.priority } : {}) };
}
