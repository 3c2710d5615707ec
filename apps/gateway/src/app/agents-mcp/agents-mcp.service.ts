import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  CancelledNotificationSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import type { RunEvent, RunStatus } from '@switchyard/contracts';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import { type AgentRow, AgentsRepository } from '../agents/agents.repository';
import { beginFormSchema, beginParamsOf, canvasDslOf } from '../agents/begin-form';
import { ApiException } from '../http/api.exception';
import { AgentsMcpRepository } from './agents-mcp.repository';
import { followRun } from '../runs/follow-run';
import { RunsService } from '../runs/runs.service';
import { type ElicitationAnswer, declinedKey, elicitable, elicitationRequest } from './mcp-elicitation';

const DEFAULT_AGENT = 'default';
// How often a call whose question was asked looks for the client's refusal, and how long it stays.
const DECLINE_POLL_MS = 250;
const DECLINE_NOTE_MS = 10 * 60_000;

/** What an MCP client is told a Switchyard agent takes. */
const INPUT_SCHEMA: Tool['inputSchema'] = {
  type: 'object',
  properties: {
    prompt: { type: 'string', description: 'What to ask the agent.' },
    thread_id: {
      type: 'string',
      description: 'Continue this conversation (the thread_id a previous call returned in _meta).',
    },
    inputs: {
      type: 'object',
      description: "A graph agent's start form (its Begin component's fields), by field name.",
    },
    run_id: {
      type: 'string',
      description:
        'Answer the question a previous call returned (_meta.waiting): that run_id, with `answer`.',
    },
    answer: {
      type: 'object',
      description:
        'The answer to that question, matching the input_schema it came with (_meta.input_schema).',
    },
  },
};

interface ToolArgs {
  prompt?: unknown;
  thread_id?: unknown;
  inputs?: unknown;
  run_id?: unknown;
  answer?: unknown;
}

/** MCP tool names: letters, digits, `_` and `-`, at most 64 characters. */
function toolNameOf(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return (cleaned || 'agent').slice(0, 64);
}

/**
 * A tenant's agents as the tools of an MCP server (`POST /mcp`, Streamable HTTP): `tools/list`
 * names each live agent (and the built-in default agent), `tools/call` runs one as a run like any
 * other (visible in the console and the run APIs), reports each step as a progress notification
 * when the client asked for progress, cancels the run when the client cancels the call, and
 * answers with the run's answer. A run that asks the user answers with its question; the client
 * calls again with the run_id and the answer.
 */
@Injectable()
export class AgentsMcp {
  private readonly logger = new Logger(AgentsMcp.name);
  private readonly calls: AgentsMcpRepository;

  constructor(
    @Inject(AgentsRepository) private readonly agents: AgentsRepository,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(Redis) private readonly redis: Redis,
  ) {
    this.calls = new AgentsMcpRepository(ds);
  }

  /** A server for one request of one tenant (the transport is stateless: nothing outlives it). */
  serverFor(
    tenant: { tenantId: string; keyId: string },
    client: {
      /** Sends a request of ours on the stream of the client's request `relatedRequestId`. */
      send: (message: JSONRPCMessage, relatedRequestId: string | number) => Promise<void>;
      /** Whether the client said it answers elicitations (its session id records it). */
      elicitation: boolean;
    },
  ): Server {
    const { tenantId } = tenant;
    const server = new Server(
      { name: 'switchyard', version: '1.0.0' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: "Each tool is one of this tenant's Switchyard agents; calling it runs the agent.",
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await this.tools(tenantId)).map((t) => t.tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const found = (await this.tools(tenantId)).find((t) => t.tool.name === req.params.name);
      if (!found) {
        return failure(`no agent offers the tool "${req.params.name}"; tools/list names them`);
      }
      const progressToken = req.params._meta?.progressToken;
      return this.call(tenantId, found.agentId, (req.params.arguments ?? {}) as ToolArgs, {
        caller: { mcp_key_id: tenant.keyId, mcp_request_id: String(extra.requestId) },
        signal: extra.signal,
        ask: client.elicitation ? (message) => client.send(message, extra.requestId) : undefined,
        progress:
          progressToken === undefined
            ? undefined
            : (progress, message) =>
                extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress, message },
                }),
      });
    });
    // A client cancels a call with a notification of its own POST, which any replica may serve:
    // the run started for that key's request id is found in Postgres and cancelled there.
    server.setNotificationHandler(CancelledNotificationSchema, async (n) => {
      const requestId = n.params.requestId;
      if (requestId === undefined) {
        return;
      }
      const runId = await this.calls.activeRunOfRequest(tenantId, tenant.keyId, String(requestId));
      if (runId) {
        await this.runs.cancel(tenantId, runId);
      }
    });
    return server;
  }

  /** The tools: the default agent, then the tenant's agents, names unique. */
  private async tools(tenantId: string): Promise<{ agentId: string; tool: Tool }[]> {
    const rows = await this.agents.list(tenantId);
    const taken = new Set<string>([DEFAULT_AGENT]);
    const tools = [
      {
        agentId: DEFAULT_AGENT,
        tool: {
          name: DEFAULT_AGENT,
          title: 'Switchyard default agent',
          description:
            "Switchyard's default agent: plans the task, uses its tools, reflects and answers the prompt.",
          inputSchema: INPUT_SCHEMA,
        },
      },
    ];
    for (const row of rows) {
      let name = toolNameOf(row.name);
      if (taken.has(name)) {
        name = `${name.slice(0, 55)}_${row.id.slice(0, 8)}`;
      }
      taken.add(name);
      tools.push({
        agentId: row.id,
        tool: { name, title: row.name, description: describe(row), inputSchema: inputSchemaOf(row) },
      });
    }
    return tools;
  }

  private async call(
    tenantId: string,
    agentId: string,
    args: ToolArgs,
    opts: {
      /** Who asked (the key and its JSON-RPC request id), kept on the run for a cancel to find. */
      caller: { mcp_key_id: string; mcp_request_id: string };
      signal: AbortSignal;
      progress?: (progress: number, message: string) => Promise<void>;
      /** Asks the client (MCP elicitation) when the run asks the user; absent: the client cannot. */
      ask?: (request: JSONRPCMessage) => Promise<void>;
    },
  ): Promise<CallToolResult> {
    let runId: string;
    let answered = new Set<string>();
    try {
      if (typeof args.run_id === 'string') {
        // The answer to a question an earlier call returned: the same run goes on.
        const run = await this.runs.get(tenantId, args.run_id);
        if (run.agent_id !== agentId) {
          return failure(`run ${args.run_id} belongs to another agent`);
        }
        const waiting = await this.runs.waitingOf(args.run_id);
        await this.runs.resume(tenantId, args.run_id, args.answer ?? {});
        runId = args.run_id;
        answered = new Set(waiting ? [waiting.task_id] : []);
      } else {
        if (typeof args.prompt !== 'string' || !args.prompt.trim()) {
          return failure('prompt is required (a non-empty string)');
        }
        const created = await this.runs.create(tenantId, {
          input: {
            prompt: args.prompt,
            ...(args.inputs && typeof args.inputs === 'object'
              ? { inputs: args.inputs as Record<string, unknown> }
              : {}),
          },
          agent_id: agentId,
          ...(typeof args.thread_id === 'string' ? { thread_id: args.thread_id } : {}),
          multitask: 'reject',
          metadata: { source: 'mcp', ...opts.caller },
        });
        runId = created.run.run_id;
      }
    } catch (err) {
      // Bad input (an unknown thread, a busy thread, an answer that does not fit): the tool's error.
      if (err instanceof ApiException) {
        return failure(err.message);
      }
      throw err;
    }
    const cancel = () =>
      void this.runs
        .cancel(tenantId, runId)
        .catch((err: Error) =>
          this.logger.warn({ run_id: runId, msg: `cancel from the MCP client failed: ${err.message}` }),
        );
    opts.signal.addEventListener('abort', cancel, { once: true });
    let steps = 0;
    let status: RunStatus;
    const follow = (cursor: string, done: ReadonlySet<string>, signal?: AbortSignal) =>
      followRun({
        hub: this.hub,
        ds: this.ds,
        runId,
        cursor,
        answered: done,
        signal,
        onEvent: (e: RunEvent) => {
          if (e.event_type === 'action' && opts.progress) {
            const p = e.payload as { node?: string; summary?: string };
            steps++;
            void opts.progress(steps, `${p.node ?? 'step'}: ${p.summary ?? ''}`).catch(() => undefined);
          }
        },
      });
    try {
      status = await follow('0', answered);
      // A client that answers elicitations is asked each question; its answer (a POST of its own,
      // to any replica) resumes the run, which this call follows on. Declined, it gets the question.
      while (status === 'waiting' && opts.ask && !opts.signal.aborted) {
        const waiting = await this.runs.waitingOf(runId);
        const ask =
          waiting && !waiting.client_calls?.length
            ? elicitable(waiting.input_schema, waiting.question)
            : null;
        if (!waiting || !ask) {
          break;
        }
        const cursor = (await this.reader.lastSeq(runId)) ?? '0';
        await opts.ask(elicitationRequest(runId, waiting.task_id, waiting.question, ask));
        const stop = new AbortController();
        const next = await this.answerOrDecline(
          runId,
          waiting.task_id,
          follow(cursor, new Set([waiting.task_id]), stop.signal),
        );
        if (next === 'declined') {
          // The run still waits: stop following it.
          stop.abort();
          break;
        }
        status = next;
      }
    } finally {
      opts.signal.removeEventListener('abort', cancel);
    }
    return this.result(tenantId, runId, status);
  }

  /** The run's next stop once its question was answered, or `declined` when the client said no. */
  private async answerOrDecline(
    runId: string,
    taskId: string,
    moved: Promise<RunStatus>,
  ): Promise<RunStatus | 'declined'> {
    let settled = false;
    const next = moved.finally(() => {
      settled = true;
    });
    const key = declinedKey(runId, taskId);
    const declined = (async (): Promise<'declined' | null> => {
      while (!settled) {
        if ((await this.redis.get(key)) !== null) {
          return 'declined';
        }
        await new Promise((r) => setTimeout(r, DECLINE_POLL_MS));
      }
      return null;
    })();
    const first = await Promise.race([next, declined]);
    if (first === 'declined') {
      // The follower is stopped by the caller; its rejection is expected.
      next.catch(() => undefined);
      return first;
    }
    return first === null ? next : first;
  }

  /**
   * The client's answers to our questions (`elicitation/create`), whichever replica they reach:
   * an accepted answer resumes the run that asked (checked against the question's schema); a
   * declined one — or one that does not fit — leaves a note the asking call reads, which then
   * returns the question as its result.
   */
  async answerElicitations(tenantId: string, answers: readonly ElicitationAnswer[]): Promise<void> {
    for (const a of answers) {
      let note: string | null = a.action === 'accept' ? null : a.action;
      // Only the tenant's own runs are answered (or noted as declined).
      const own = await this.runs.get(tenantId, a.run).then(
        () => true,
        () => false,
      );
      if (!own) {
        continue;
      }
      if (a.action === 'accept') {
        try {
          const waiting = await this.runs.waitingOf(a.run);
          if (waiting?.task_id !== a.task) {
            continue;
          }
          await this.runs.resume(tenantId, a.run, a.value);
        } catch (err) {
          if (!(err instanceof ApiException)) {
            throw err;
          }
          note = `refused: ${err.message}`;
        }
      }
      if (note !== null) {
        await this.redis.set(declinedKey(a.run, a.task), note, 'PX', DECLINE_NOTE_MS);
      }
    }
  }

  private async result(tenantId: string, runId: string, status: RunStatus): Promise<CallToolResult> {
    const run = await this.runs.get(tenantId, runId);
    const output = run.output as { answer?: unknown; structured?: unknown } | null;
    const meta = { run_id: runId, thread_id: run.thread_id, status };
    if (status === 'waiting') {
      const waiting = await this.runs.waitingOf(runId);
      return {
        content: [{ type: 'text', text: waiting?.question ?? 'The agent waits for an answer.' }],
        _meta: { ...meta, waiting: true, input_schema: waiting?.input_schema ?? {} },
      };
    }
    if (status !== 'succeeded') {
      const message = (run.error as { message?: string } | null)?.message ?? 'no answer';
      return { ...failure(`the run ${status}: ${message}`), _meta: meta };
    }
    const answer = typeof output?.answer === 'string' ? output.answer : '';
    const structured = output?.structured;
    return {
      content: [{ type: 'text', text: answer }],
      ...(structured && typeof structured === 'object' && !Array.isArray(structured)
        ? { structuredContent: structured as Record<string, unknown> }
        : {}),
      _meta: meta,
    };
  }
}

function failure(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** What a tool takes: the prompt, and a graph agent's Begin form as `inputs` when it has one. */
function inputSchemaOf(row: AgentRow): Tool['inputSchema'] {
  const form = beginFormSchema(beginParamsOf(canvasDslOf(row.draft)));
  if (!form) {
    return INPUT_SCHEMA;
  }
  return {
    ...INPUT_SCHEMA,
    properties: {
      ...INPUT_SCHEMA.properties,
      inputs: { ...form, description: "The agent's start form (its Begin component's fields)." },
    },
  };
}

function describe(row: AgentRow): string {
  const kind = row.draft.kind === 'graph' ? 'graph agent' : 'agent';
  const prompt = row.draft.system_prompt?.trim();
  return `Runs the Switchyard ${kind} "${row.name}"${prompt ? `: ${prompt.slice(0, 300)}` : '.'}`;
}
