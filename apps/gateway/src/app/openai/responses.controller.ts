import { randomUUID } from 'node:crypto';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { type ChatMessage as HistoryMessage, type RunStatus, isTerminal } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { RunsService } from '../runs/runs.service';
import { AgentModels, type ResolvedModel } from './agent-models.service';
import { paramOf } from './chat-completions.dto';
import { ClientTurns, type Turn } from './client-turns';
import { OpenAiErrorCode, OpenAiException } from './openai.exception';
import {
  type ResponseRequest,
  ResponseRequestPipe,
  clientOptionsOf,
  responseIdOf,
  turnOf,
  uuidOfResponseId,
} from './responses.dto';
import {
  type ResponseRow,
  ResponsesRepository,
  type StoredInputItem,
  type StoredRequest,
} from './responses.repository';
import { ResponseEvents, type ResponseState, responseObject, stateOf } from './responses.view';

const InputItemsQuerySchema = z
  .object({
    order: z.enum(['asc', 'desc']).default('desc'),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    after: z.string().min(1).optional(),
    include: z.unknown().optional(),
  })
  .strict();

const IN_PROGRESS: Omit<ResponseState, 'status'> = {
  output: [],
  error: null,
  usage: null,
  completedAt: null,
};

/**
 * OpenAI's Responses API over runs: `model` names the agent; a user message last in `input` is a
 * turn (a new thread, or with `previous_response_id` the next turn of that response's thread),
 * `function_call_output` items last are the results of the client functions a paused run asked
 * for (`function_call` output items). `instructions` join the thread as a system message;
 * `text.format` makes the answer JSON; `stream` sends the Responses stream events; `background`
 * answers at once and the response is read back with `GET /v1/responses/:id`. Every response is
 * stored, and its run shows in the runs API and the console like any other.
 */
@Controller('v1/responses')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class ResponsesController {
  constructor(
    @Inject(ClientTurns) private readonly turns: ClientTurns,
    @Inject(AgentModels) private readonly models: AgentModels,
    @Inject(ResponsesRepository) private readonly responses: ResponsesRepository,
    @Inject(RunsService) private readonly runs: RunsService,
  ) {}

  @Post()
  async create(
    @Tenant() tenant: TenantContext,
    @Body(new ResponseRequestPipe()) body: ResponseRequest,
    @Res() res: Response,
  ): Promise<void> {
    const { tenantId } = tenant;
    const model = await this.models.resolve(tenantId, body.model);
    const previous = body.previous_response_id
      ? await this.previous(tenantId, body.previous_response_id)
      : null;
    const turn = await this.turnFor(tenantId, body, model, previous);
    const row = await this.responses.insert({
      id: randomUUID(),
      tenant_id: tenantId,
      run_id: turn.runId,
      thread_id: turn.threadId,
      previous_response_id: previous?.id ?? null,
      model: body.model,
      request: storedRequest(body),
      input: storedInput(body),
      cursor: turn.cursor,
      answered: [...turn.answered],
      usage_before: turn.usageBefore,
    });
    res.setHeader('X-Thread-Id', turn.threadId);
    res.setHeader('X-Run-Id', turn.runId);

    if (body.background) {
      const status = await this.turns.statusOf(tenantId, turn.runId);
      res
        .status(200)
        .json(
          responseObject(row, { status: status === 'queued' ? 'queued' : 'in_progress', ...IN_PROGRESS }),
        );
      return;
    }
    if (!body.stream) {
      const ended = await this.turns.follow(turn);
      res.status(200).json(await this.finish(tenantId, row, turn, ended));
      return;
    }

    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    const events = new ResponseEvents((frame) => res.write(frame), row.id);
    events.started(responseObject(row, { status: 'in_progress', ...IN_PROGRESS }));
    const ended = await this.turns.followText(turn, (text) => events.delta(text));
    if (ended === 'diverged') {
      // A retried answer departed from the text already sent, which cannot be taken back.
      events.error(
        'stream_interrupted',
        `the answer was regenerated after ${events.streamed.length} characters had been sent and differs from them; read it whole with GET /v1/responses/${responseIdOf(row.id)}`,
      );
      res.end();
      return;
    }
    const response = await this.finish(tenantId, row, turn, ended);
    events.finished(response, stateOfStored(response));
    res.end();
  }

  @Get(':id')
  async retrieve(
    @Tenant() tenant: TenantContext,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (query['stream'] !== undefined && query['stream'] !== 'false') {
      throw OpenAiException.unsupported(
        'stream',
        'a stored response is read whole: stream is not supported here',
        OpenAiErrorCode.UnsupportedValue,
      );
    }
    const row = await this.found(tenant.tenantId, id);
    return this.current(tenant.tenantId, row);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Tenant() tenant: TenantContext, @Param('id') id: string): Promise<Record<string, unknown>> {
    const { tenantId } = tenant;
    const row = await this.found(tenantId, id);
    const now = await this.current(tenantId, row);
    if (now['status'] !== 'in_progress' && now['status'] !== 'queued') {
      if (now['status'] === 'cancelled') {
        return now;
      }
      throw OpenAiException.invalid(
        null,
        `response ${id} is already ${String(now['status'])}: only an unfinished response can be cancelled`,
      );
    }
    try {
      await this.runs.cancel(tenantId, row.run_id);
    } catch {
      // The run ended meanwhile: the response is what it ended as.
    }
    const turn = turnOfRow(row);
    return this.finish(tenantId, row, turn, await this.turns.follow(turn));
  }

  @Delete(':id')
  async remove(@Tenant() tenant: TenantContext, @Param('id') id: string) {
    const uuid = uuidOfResponseId(id);
    if (!uuid || !(await this.responses.delete(tenant.tenantId, uuid))) {
      throw notFound(id);
    }
    return { id, object: 'response.deleted', deleted: true };
  }

  @Get(':id/input_items')
  async inputItems(
    @Tenant() tenant: TenantContext,
    @Param('id') id: string,
    @Query() raw: Record<string, unknown>,
  ) {
    const parsed = InputItemsQuerySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = issue.code === 'unrecognized_keys' ? issue.keys[0] : paramOf(issue.path);
      throw OpenAiException.invalid(param, `${param ?? 'the query'}: ${issue.message}`);
    }
    const q = parsed.data;
    if (q.include !== undefined) {
      throw OpenAiException.unsupported('include', 'include is not supported: items are listed whole');
    }
    const row = await this.found(tenant.tenantId, id);
    const items = q.order === 'asc' ? [...row.input] : [...row.input].reverse();
    let from = 0;
    if (q.after) {
      from = items.findIndex((i) => i.id === q.after) + 1;
      if (from === 0) {
        throw OpenAiException.invalid('after', `no input item "${q.after}" in response ${id}`);
      }
    }
    const data = items.slice(from, from + q.limit);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
      has_more: from + q.limit < items.length,
    };
  }

  /** What the request's input does: continue the paused run, answer its question, or start a turn. */
  private async turnFor(
    tenantId: string,
    body: ResponseRequest,
    model: ResolvedModel,
    previous: ResponseRow | null,
  ): Promise<Turn> {
    const asked = turnOf(body);
    if (asked.kind === 'results') {
      return this.turns.continueWith(
        tenantId,
        model,
        asked.results,
        previous?.thread_id,
        'previous_response_id',
      );
    }
    if (previous) {
      const run = await this.runs.get(tenantId, previous.run_id);
      if (run.status === 'waiting') {
        const waiting = await this.runs.waitingOf(previous.run_id);
        const calls = waiting?.client_calls ?? [];
        if (calls.length) {
          throw OpenAiException.invalid(
            'input',
            `the previous response's run waits for the results of its function calls ${calls.map((c) => c.id).join(', ')}: send function_call_output items`,
          );
        }
        if (asked.history.length) {
          throw OpenAiException.invalid(
            'input',
            'the previous response asked a question: its answer is one user message',
          );
        }
        // The previous response asked the user (ask_user): this message answers it, and the run goes on.
        return this.turns.answerQuestion(tenantId, previous.run_id, asked.prompt, asked.param);
      }
    }
    const instructions: HistoryMessage[] =
      body.instructions && body.instructions !== previous?.request.instructions
        ? [{ role: 'system', content: body.instructions }]
        : [];
    return this.turns.start(tenantId, model, {
      prompt: asked.prompt,
      threadId: previous?.thread_id,
      history: [...instructions, ...asked.history],
      client: clientOptionsOf(body),
      metadata: { source: 'responses', ...(body.user !== undefined ? { user_id: body.user } : {}) },
    });
  }

  private async previous(tenantId: string, id: string): Promise<ResponseRow> {
    const uuid = uuidOfResponseId(id);
    const row = uuid ? await this.responses.find(tenantId, uuid) : null;
    if (!row) {
      throw new OpenAiException(
        404,
        OpenAiErrorCode.PreviousResponseNotFound,
        `Previous response with id '${id}' not found.`,
        'previous_response_id',
      );
    }
    return row;
  }

  private async found(tenantId: string, id: string): Promise<ResponseRow> {
    const uuid = uuidOfResponseId(id);
    const row = uuid ? await this.responses.find(tenantId, uuid) : null;
    if (!row) {
      throw notFound(id);
    }
    return row;
  }

  /** The response as it is now: as it ended, or read from its run while that works. */
  private async current(tenantId: string, row: ResponseRow): Promise<Record<string, unknown>> {
    if (row.response) {
      return row.response;
    }
    const turn = turnOfRow(row);
    const status = await this.turns.statusOf(tenantId, row.run_id);
    const ended = await this.endedAs(turn, status);
    if (!ended) {
      return responseObject(row, { status: status === 'queued' ? 'queued' : 'in_progress', ...IN_PROGRESS });
    }
    return this.finish(tenantId, row, turn, ended);
  }

  /** The status the turn ended with, or null while it goes on (a wait it answered is going on). */
  private async endedAs(turn: Turn, status: RunStatus): Promise<RunStatus | null> {
    if (isTerminal(status)) {
      return status;
    }
    if (status !== 'waiting') {
      return null;
    }
    const waiting = await this.runs.waitingOf(turn.runId);
    return waiting && !turn.answered.has(waiting.task_id) ? 'waiting' : null;
  }

  /** Builds the response the turn ended with and keeps it (the first one kept is the response). */
  private async finish(
    tenantId: string,
    row: ResponseRow,
    turn: Turn,
    ended: RunStatus,
  ): Promise<Record<string, unknown>> {
    const outcome = await this.turns.outcome(turn, tenantId, ended);
    const state = stateOf(row.id, outcome, await this.turns.usageOf(turn));
    return this.responses.finish(row.id, responseObject(row, state));
  }
}

function notFound(id: string): OpenAiException {
  return new OpenAiException(
    404,
    OpenAiErrorCode.ResponseNotFound,
    `Response with id '${id}' not found.`,
    null,
  );
}

function turnOfRow(row: ResponseRow): Turn {
  return {
    runId: row.run_id,
    threadId: row.thread_id,
    cursor: row.cursor,
    answered: new Set(row.answered),
    usageBefore: row.usage_before,
  };
}

function storedRequest(body: ResponseRequest): StoredRequest {
  return {
    instructions: body.instructions ?? null,
    tools: body.tools ?? [],
    tool_choice: body.tool_choice ?? 'auto',
    text_format: body.text?.format ?? { type: 'text' },
    metadata: body.metadata ?? {},
    user: body.user ?? null,
    background: body.background ?? false,
  };
}

/** The input as its items, each with the id it is listed under. */
function storedInput(body: ResponseRequest): StoredInputItem[] {
  const prefix = randomUUID().replace(/-/g, '');
  if (typeof body.input === 'string') {
    return [
      {
        type: 'message',
        id: `msg_${prefix}_0`,
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: body.input }],
      },
    ];
  }
  return body.input.map((item, i) => {
    const id =
      item.id ?? `${item.type === undefined || item.type === 'message' ? 'msg' : 'fc'}_${prefix}_${i}`;
    if (item.type === 'function_call' || item.type === 'function_call_output') {
      return { ...item, id };
    }
    const content =
      typeof item.content === 'string'
        ? [
            {
              type: item.role === 'assistant' ? ('output_text' as const) : ('input_text' as const),
              text: item.content,
            },
          ]
        : item.content;
    return { ...item, type: 'message' as const, id, status: item.status ?? 'completed', content };
  });
}

/** The state a stored response tells (what its end events carry). */
function stateOfStored(response: Record<string, unknown>): ResponseState {
  return {
    status: response['status'] as ResponseState['status'],
    output: response['output'] as ResponseState['output'],
    error: response['error'] as ResponseState['error'],
    usage: null,
    completedAt: response['completed_at'] as number | null,
  };
}
