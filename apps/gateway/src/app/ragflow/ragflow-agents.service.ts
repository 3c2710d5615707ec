import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { DEFAULT_AGENT_ID, type RunEvent, isTerminal, isUuid } from '@switchyard/contracts';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import type { RunWaiting } from '@switchyard/persistence';
import { type AgentRow, AgentsRepository } from '../agents/agents.repository';
import { beginParamsOf, canvasDslOf } from '../agents/begin-form';
import { ApiException } from '../http/api.exception';
import { ClientTurns, type Turn } from '../openai/client-turns';
import { type RagflowRunContext, RagflowEventEncoder, ragflowEncoding } from '../runs/ragflow-events';
import { RagflowRuns } from '../runs/ragflow-run.source';
import { followRun } from '../runs/follow-run';
import { RunEventStreams } from '../runs/run-event-streams.service';
import { RunsService } from '../runs/runs.service';
import { ThreadsRepository } from '../threads/threads.repository';
import { type CompletionBody, RagflowCode, RagflowException, REFUSED_COMPLETION_KEYS } from './ragflow.dto';
import { RagflowRepository, type SessionRow, type SessionTurn } from './ragflow.repository';

const KNOWN_KEYS = new Set([
  'agent_id',
  'query',
  'question',
  'stream',
  'session_id',
  'inputs',
  'user_id',
  'return_trace',
  'files',
  'openai-compatible',
  'messages',
  'model',
]);

/** RAGFlow's event envelope. */
interface Envelope {
  event: string;
  message_id: string;
  created_at: number;
  task_id: string;
  session_id: string;
  data: Record<string, unknown>;
}

/** An agent as RAGFlow's API knows one: the DSL it was saved with, its Begin form and prologue. */
interface Canvas {
  id: string;
  row: AgentRow | null;
  dsl: Record<string, unknown> | null;
  beginParams: Record<string, unknown>;
}

/**
 * RAGFlow's agent HTTP API over Switchyard's agents, threads and runs, so a RAGFlow client moves
 * by changing its base URL: an agent's session is a thread of it, a completion is a run (or the
 * answer to the run of the session that waits for its form), streamed in RAGFlow's own events.
 */
@Injectable()
export class RagflowAgents {
  constructor(
    @Inject(AgentsRepository) private readonly agents: AgentsRepository,
    @Inject(RagflowRepository) private readonly repo: RagflowRepository,
    @Inject(ThreadsRepository) private readonly threads: ThreadsRepository,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RagflowRuns) private readonly ragflowRuns: RagflowRuns,
    @Inject(RunEventStreams) private readonly streams: RunEventStreams,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(ClientTurns) private readonly turns: ClientTurns,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  /** `GET /api/v1/agents`: the tenant's agents as RAGFlow lists canvases. */
  async list(
    tenantId: string,
    q: { page: number; page_size: number; orderby: string; desc: boolean; id?: string; title?: string },
  ): Promise<Record<string, unknown>[]> {
    let rows = await this.agents.list(tenantId);
    rows = rows.filter((r) => (!q.id || r.id === q.id) && (!q.title || r.name === q.title));
    if (q.id && rows.length === 0) {
      throw new RagflowException(RagflowCode.DataError, "The agent doesn't exist.");
    }
    const key = (r: AgentRow) =>
      new Date(q.orderby === 'update_time' ? r.updated_at : r.created_at).getTime();
    rows.sort((a, b) => (q.desc ? key(b) - key(a) : key(a) - key(b)));
    return rows.slice((q.page - 1) * q.page_size, q.page * q.page_size).map((r) => ({
      id: r.id,
      title: r.name,
      description: r.draft.system_prompt ?? null,
      dsl: canvasDslOf(r.draft),
      avatar: null,
      canvas_type: null,
      canvas_category: 'agent_canvas',
      user_id: tenantId,
      create_time: new Date(r.created_at).getTime(),
      create_date: new Date(r.created_at).toUTCString(),
      update_time: new Date(r.updated_at).getTime(),
      update_date: new Date(r.updated_at).toUTCString(),
    }));
  }

  /** `POST /api/v1/agents/{agent_id}/sessions`: a new thread of the agent, its Begin inputs kept. */
  async createSession(
    tenantId: string,
    agentId: string,
    body: Record<string, unknown>,
    userIdQuery: string | undefined,
  ): Promise<Record<string, unknown>> {
    const canvas = await this.canvas(tenantId, agentId);
    const { name, user_id, release: _release, ...rest } = body;
    const inputs = this.beginInputs(canvas, rest);
    const userId = typeof user_id === 'string' ? user_id : (userIdQuery ?? tenantId);
    const row = await this.repo.createSession(tenantId, canvas.id, {
      name: typeof name === 'string' ? name : '',
      user_id: userId,
      inputs,
    });
    return this.sessionView(canvas, row, [], true);
  }

  /** `GET /api/v1/agents/{agent_id}/sessions`: the agent's sessions with their messages. */
  async listSessions(
    tenantId: string,
    agentId: string,
    q: {
      page: number;
      page_size: number;
      orderby: 'create_time' | 'update_time';
      desc: boolean;
      id?: string;
      user_id?: string;
      dsl: boolean;
    },
  ): Promise<{ data: Record<string, unknown>[]; total: number }> {
    const canvas = await this.canvas(tenantId, agentId);
    if (q.id !== undefined && !isUuid(q.id)) {
      return { data: [], total: 0 };
    }
    const rows = await this.repo.sessions(tenantId, canvas.id, {
      id: q.id,
      userId: q.user_id,
      orderBy: q.orderby,
      desc: q.desc,
      page: q.page,
      size: q.page_size,
    });
    const turns = await this.repo.turns(rows.map((r) => r.id));
    return {
      data: rows.map((r) =>
        this.sessionView(
          canvas,
          r,
          turns.filter((t) => t.thread_id === r.id),
          q.dsl,
        ),
      ),
      total: rows[0]?.total ?? 0,
    };
  }

  /** `GET /api/v1/agents/{agent_id}/sessions/{session_id}`. */
  async getSession(tenantId: string, agentId: string, sessionId: string): Promise<Record<string, unknown>> {
    const canvas = await this.canvas(tenantId, agentId);
    const row = await this.session(tenantId, canvas, sessionId);
    return this.sessionView(canvas, row, await this.repo.turns([row.id]), true);
  }

  /**
   * `DELETE /api/v1/agents/{agent_id}/sessions`: `ids` (or `delete_all`); each a thread of the
   * agent, deleted with its runs. Ids that are not the agent's (or still run) are reported as
   * RAGFlow does: all failed → an error; some → `{success_count, errors}`.
   */
  async deleteSessions(
    tenantId: string,
    agentId: string,
    ids: string[] | undefined,
    all: boolean,
  ): Promise<{ data?: unknown; message?: string }> {
    const canvas = await this.canvas(tenantId, agentId);
    let targets = ids ?? [];
    if (!targets.length && all) {
      const rows = await this.repo.sessions(tenantId, canvas.id, {
        orderBy: 'create_time',
        desc: false,
        page: 1,
        size: 100_000,
      });
      targets = rows.map((r) => r.id);
    }
    const errors: string[] = [];
    let deleted = 0;
    for (const id of [...new Set(targets)]) {
      const own = await this.repo.session(tenantId, canvas.id, id);
      if (!own) {
        errors.push(`The agent doesn't own the session ${id}`);
        continue;
      }
      try {
        await this.threads.delete(tenantId, id);
        deleted++;
      } catch (err) {
        if (!(err instanceof ApiException)) {
          throw err;
        }
        errors.push(`session ${id}: ${err.message}`);
      }
    }
    if (errors.length && deleted === 0) {
      throw new RagflowException(RagflowCode.DataError, errors.join('; '));
    }
    if (errors.length) {
      return {
        data: { success_count: deleted, errors },
        message: `Partially deleted ${deleted} sessions with ${errors.length} errors`,
      };
    }
    return {};
  }

  /** A completion in standard mode: RAGFlow's events streamed (then `[DONE]`), or the answer. */
  async complete(
    tenantId: string,
    body: CompletionBody,
    res: Response,
  ): Promise<Record<string, unknown> | null> {
    const agentId = body.agent_id;
    if (!agentId) {
      throw new RagflowException(RagflowCode.ArgumentError, '`agent_id` is required.');
    }
    const canvas = await this.canvas(tenantId, agentId);
    if (body['openai-compatible']) {
      return this.completeOpenAi(tenantId, canvas, body, res);
    }
    for (const key of Object.keys(body)) {
      if (Object.hasOwn(REFUSED_COMPLETION_KEYS, key)) {
        throw new RagflowException(
          RagflowCode.ArgumentError,
          `${key} is not supported: ${REFUSED_COMPLETION_KEYS[key]}`,
        );
      }
    }
    const extra = Object.fromEntries(Object.entries(body).filter(([k]) => !KNOWN_KEYS.has(k)));
    const query = body.query ?? body.question ?? '';
    const session = body.session_id ? await this.session(tenantId, canvas, body.session_id) : null;
    // What this request brings (top-level Begin inputs, `inputs`), and for a new run the
    // session's Begin inputs under it; an answer to a form is only what this request brings.
    const brought = { ...this.beginInputs(canvas, extra), ...(body.inputs ?? {}) };
    const inputs = { ...(session?.metadata.ragflow?.inputs ?? {}), ...brought };
    const waiting = session ? await this.repo.waitingRun(session.id) : null;
    let runId: string;
    let cursor: string | null = null;
    let answered = new Set<string>();
    if (waiting) {
      // The session's run waits for its form (UserFillUp) or a question: this completion answers it.
      cursor = (await this.reader.lastSeq(waiting.id)) ?? '0-0';
      await this.apiCall(() =>
        this.runs.resume(tenantId, waiting.id, answerOf(waiting.waiting, query, brought)),
      );
      runId = waiting.id;
      answered = new Set([waiting.waiting.task_id]);
    } else {
      if (!query.trim()) {
        throw new RagflowException(
          RagflowCode.ArgumentError,
          'query is required: a Switchyard run starts from a prompt (the Begin inputs go in `inputs`)',
        );
      }
      const { run } = await this.apiCall(() =>
        this.runs.create(tenantId, {
          input: {
            prompt: query,
            ...(Object.keys(inputs).length && canvas.row?.draft.kind === 'graph' ? { inputs } : {}),
          },
          ...(session ? { thread_id: session.id } : {}),
          agent_id: canvas.id,
          multitask: 'reject',
          metadata: { source: 'ragflow', ...(body.user_id ? { user_id: body.user_id } : {}) },
        }),
      );
      runId = run.run_id;
    }
    const ctx = await this.ragflowRuns.context(runId);
    const trace = body.return_trace ? new TraceCollector() : null;
    if (body.stream) {
      const inner = ragflowEncoding(this.ragflowRuns, ctx);
      await this.streams.stream(res, runId, cursor, {
        format: 'ragflow-agent-api',
        encode: (e) => wire(inner.encode(e), trace),
        // A run that waits for its form ends this completion; the next one answers it. (The
        // stream starts after the wait it answered: a wait in it is a new one.)
        endsAt: (e) => e.event_type === 'waiting_for_user',
        close: async () => `${wire(await inner.close(), trace)}data:[DONE]\n\n`,
      });
      return null;
    }
    return this.collect(ctx, runId, cursor ?? '0-0', answered, trace);
  }

  /** The non-streamed completion: RAGFlow's aggregation of the same events. */
  private async collect(
    ctx: RagflowRunContext,
    runId: string,
    cursor: string,
    answered: Set<string>,
    trace: TraceCollector | null,
  ): Promise<Record<string, unknown>> {
    const encoder = new RagflowEventEncoder(ctx);
    let frames = '';
    const ended = await followRun({
      hub: this.hub,
      ds: this.ds,
      runId,
      cursor,
      answered,
      onEvent: (e: RunEvent) => {
        frames += encoder.encode(e);
      },
    });
    if (isTerminal(ended)) {
      frames += encoder.end(await this.ragflowRuns.end(runId));
    }
    let content = '';
    let final: Envelope | null = null;
    for (const env of envelopesOf(frames)) {
      trace?.add(env);
      if (env.event === 'error') {
        throw new RagflowException(RagflowCode.ServerError, String(env.data['message'] ?? 'the run failed'));
      }
      if (env.event === 'message') {
        content += String(env.data['content'] ?? '');
        if (env.data['start_to_think']) {
          content += '<think>';
        }
        if (env.data['end_to_think']) {
          content += '</think>';
        }
      }
      if (env.event === 'message_end') {
        final = env;
      } else if (env.event === 'user_inputs' && !final) {
        final = env;
      }
    }
    if (!final) {
      return { session_id: ctx.threadId };
    }
    return {
      ...final,
      data: { ...final.data, content, reference: {}, ...(trace ? { trace: trace.items } : {}) },
    };
  }

  /** The OpenAI-compatible mode: the last user message is the question, the session the thread. */
  private async completeOpenAi(
    tenantId: string,
    canvas: Canvas,
    body: CompletionBody,
    res: Response,
  ): Promise<Record<string, unknown> | null> {
    const messages = body.messages ?? [];
    if (!messages.length) {
      throw new RagflowException(RagflowCode.DataError, 'You must provide at least one message.');
    }
    const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const session = body.session_id ? await this.session(tenantId, canvas, body.session_id) : null;
    const waiting = session ? await this.repo.waitingRun(session.id) : null;
    let turn: Turn;
    if (waiting) {
      turn = await this.apiCall(() => this.turns.answerQuestion(tenantId, waiting.id, question, 'messages'));
    } else {
      if (!question.trim()) {
        throw new RagflowException(RagflowCode.ArgumentError, 'the last user message has no text');
      }
      turn = await this.apiCall(() =>
        this.turns.start(
          tenantId,
          { agentId: canvas.id },
          { prompt: question, threadId: session?.id, client: {}, metadata: { source: 'ragflow' } },
        ),
      );
    }
    const id = `chatcmpl-${turn.runId}`;
    if (!body.stream) {
      const outcome = await this.turns.outcome(turn, tenantId, await this.turns.follow(turn));
      if (outcome.kind === 'failed') {
        throw new RagflowException(RagflowCode.ServerError, outcome.message);
      }
      const usage = await this.turns.usageOf(turn);
      return {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: canvas.id,
        session_id: turn.threadId,
        choices: [
          {
            finish_reason: 'stop',
            index: 0,
            message: {
              role: 'assistant',
              content: outcome.kind === 'tool_calls' ? '' : outcome.content,
              reference: {},
            },
          },
        ],
        usage,
      };
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: canvas.id, session_id: turn.threadId, choices: [{ delta, finish_reason: finish, index: 0 }] })}\n\n`;
    let streamed = '';
    const ended = await this.turns.followText(turn, (text) => {
      streamed += text;
      res.write(chunk({ role: 'assistant', content: text }, null));
    });
    if (ended !== 'diverged') {
      const outcome = await this.turns.outcome(turn, tenantId, ended);
      if (outcome.kind === 'failed') {
        res.write(
          `data: ${JSON.stringify({ code: RagflowCode.ServerError, message: outcome.message, data: false })}\n\n`,
        );
      } else if (
        outcome.kind !== 'tool_calls' &&
        outcome.content.startsWith(streamed) &&
        outcome.content.length > streamed.length
      ) {
        res.write(chunk({ role: 'assistant', content: outcome.content.slice(streamed.length) }, null));
      }
    }
    res.write(chunk({}, 'stop'));
    res.write('data: [DONE]\n\n');
    res.end();
    return null;
  }

  /** The agent RAGFlow's `agent_id` names (an id of the tenant's, or `default`). */
  private async canvas(tenantId: string, agentId: string): Promise<Canvas> {
    if (agentId === DEFAULT_AGENT_ID) {
      return { id: DEFAULT_AGENT_ID, row: null, dsl: null, beginParams: {} };
    }
    const [row] = isUuid(agentId) ? await this.agents.list(tenantId, agentId) : [];
    if (!row) {
      throw new RagflowException(RagflowCode.DataError, 'Agent not found.');
    }
    const dsl = canvasDslOf(row.draft);
    const beginParams = beginParamsOf(dsl);
    return { id: row.id, row, dsl, beginParams };
  }

  private async session(tenantId: string, canvas: Canvas, sessionId: string): Promise<SessionRow> {
    const row = await this.repo.session(tenantId, canvas.id, sessionId);
    if (!row) {
      throw new RagflowException(RagflowCode.DataError, 'Session not found!');
    }
    return row;
  }

  /** Begin inputs named at the top level (RAGFlow takes them there): each must be one of its form's. */
  private beginInputs(canvas: Canvas, extra: Record<string, unknown>): Record<string, unknown> {
    const form = (canvas.beginParams['inputs'] as Record<string, unknown> | undefined) ?? {};
    for (const key of Object.keys(extra)) {
      if (!Object.hasOwn(form, key)) {
        throw new RagflowException(
          RagflowCode.ArgumentError,
          `unknown parameter ${key}: not one of the agent's Begin inputs (${Object.keys(form).join(', ') || 'none'})`,
        );
      }
    }
    return extra;
  }

  private sessionView(
    canvas: Canvas,
    row: SessionRow,
    turns: SessionTurn[],
    withDsl: boolean,
  ): Record<string, unknown> {
    const prologue =
      canvas.beginParams['enablePrologue'] !== false && typeof canvas.beginParams['prologue'] === 'string'
        ? canvas.beginParams['prologue']
        : '';
    const message: { role: string; content: string }[] = [{ role: 'assistant', content: prologue }];
    for (const t of turns) {
      message.push({ role: 'user', content: t.prompt });
      const said = t.answer ?? t.question;
      if (said !== null) {
        message.push({ role: 'assistant', content: said });
      }
    }
    const meta = row.metadata.ragflow ?? {};
    return {
      id: row.id,
      agent_id: row.agent_id,
      name: meta.name ?? '',
      message,
      source: 'agent',
      user_id: meta.user_id ?? '',
      create_time: new Date(row.created_at).getTime(),
      update_time: new Date(row.updated_at).getTime(),
      ...(withDsl ? { dsl: canvas.dsl } : {}),
    };
  }

  private async apiCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ApiException) {
        throw new RagflowException(RagflowCode.OperatingError, err.message);
      }
      throw err;
    }
  }
}

/** The answer to a waiting run: the form's values (RAGFlow sends `{field: {value, …}}`), or the query. */
function answerOf(waiting: RunWaiting, query: string, inputs: Record<string, unknown>): unknown {
  const type = (waiting.input_schema as { type?: unknown }).type;
  if (type === undefined || type === 'string') {
    return query;
  }
  if (Object.keys(inputs).length) {
    return Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [
        k,
        v && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? (v as { value: unknown }).value : v,
      ]),
    );
  }
  try {
    return JSON.parse(query) as unknown;
  } catch {
    throw new RagflowException(
      RagflowCode.ArgumentError,
      `the session waits for its form ${JSON.stringify(waiting.input_schema)}: send the values in inputs`,
    );
  }
}

/** The envelopes in frames the RAGFlow encoder wrote (`id:`, `event:`, `data:` lines). */
function envelopesOf(frames: string): Envelope[] {
  const out: Envelope[] = [];
  for (const line of frames.split('\n')) {
    if (line.startsWith('data: ')) {
      out.push(JSON.parse(line.slice(6)) as Envelope);
    }
  }
  return out;
}

/** The frames as RAGFlow writes them: `data:<json>` only (its SDK reads `data:` lines). */
function wire(frames: string, trace: TraceCollector | null): string {
  return envelopesOf(frames)
    .map((env) => `data:${JSON.stringify(trace ? trace.add(env) : env)}\n\n`)
    .join('');
}

/** `return_trace`: each `node_finished` carries the trace so far, as RAGFlow's does. */
class TraceCollector {
  readonly items: { component_id: unknown; trace: unknown[] }[] = [];

  add(env: Envelope): Envelope {
    if (env.event !== 'node_finished') {
      return env;
    }
    this.items.push({ component_id: env.data['component_id'], trace: [structuredClone(env.data)] });
    return { ...env, data: { ...env.data, trace: [...this.items] } };
  }
}
