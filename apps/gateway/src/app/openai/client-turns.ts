import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type ChatMessage as HistoryMessage,
  type ClientRequestOptions,
  type RunStatus,
  type Usage,
  isAnswerNode,
} from '@switchyard/contracts';
import { RunEventHub, RunEventReader } from '@switchyard/events';
import type { WaitingClientCall } from '@switchyard/persistence';
import { followRun } from '../runs/follow-run';
import { RunsService } from '../runs/runs.service';
import type { ResolvedModel } from './agent-models.service';

/** The agent (and version) a turn's run is of: what a resolved model names. */
export type AgentOf = Pick<ResolvedModel, 'agentId' | 'agentVersion'>;
import { AnswerRelay } from './answer-relay';
import { OpenAiErrorCode, OpenAiException } from './openai.exception';

export const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** The run a request follows, and where it picks it up. */
export interface Turn {
  runId: string;
  threadId: string;
  /** Events after this id are this request's (the run's earlier requests saw the rest). */
  cursor: string;
  /** Human tasks this request answered: a wait on one of them is the wait that just ended. */
  answered: ReadonlySet<string>;
  /** The run's metered usage before this request: a response reports only its own share. */
  usageBefore: Usage;
}

/** How the followed part of the run ended, as an OpenAI response tells it. */
export type Outcome =
  | { kind: 'answer'; content: string; structured?: unknown }
  | { kind: 'tool_calls'; calls: WaitingClientCall[] }
  | { kind: 'question'; content: string }
  | { kind: 'failed'; status: RunStatus; message: string };

/** A client function's result, and where the request carried it (the `param` of an error). */
export interface ClientCallResult {
  callId: string;
  output: string;
  param: string;
}

/** A token of an answer node as the run's events carry it. */
export interface AnswerToken {
  task_id: string;
  attempt?: number;
  text: string;
}

/**
 * The OpenAI-shaped surfaces' turns over runs (chat completions and the Responses API): a
 * request either starts a run (a new thread or the next turn of one) or brings the results of
 * the client functions a paused run waits for; it then follows the run until it answers, asks,
 * calls client functions or fails.
 */
@Injectable()
export class ClientTurns {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(RunEventHub) private readonly hub: RunEventHub,
    @Inject(RunEventReader) private readonly reader: RunEventReader,
    @Inject(DataSource) private readonly ds: DataSource,
  ) {}

  /** A new run of the model's agent. */
  async start(
    tenantId: string,
    model: AgentOf,
    turn: {
      prompt: string;
      threadId?: string;
      history?: HistoryMessage[];
      client: ClientRequestOptions;
      metadata: Record<string, unknown>;
    },
  ): Promise<Turn> {
    const { run } = await this.runs.create(
      tenantId,
      {
        input: { prompt: turn.prompt },
        thread_id: turn.threadId,
        agent_id: model.agentId,
        ...(model.agentVersion ? { agent_version: model.agentVersion } : {}),
        multitask: 'reject',
        metadata: turn.metadata,
        ...(turn.history?.length ? { history: turn.history } : {}),
      },
      turn.client,
    );
    return {
      runId: run.run_id,
      threadId: run.thread_id,
      cursor: '0-0',
      answered: new Set(),
      usageBefore: ZERO_USAGE,
    };
  }

  /**
   * The results of the client functions a paused run asked for, found by the first result's call
   * id within the tenant (and the thread, when the request names one): every call the run waits
   * for needs its result; each error names the request field at fault.
   */
  async continueWith(
    tenantId: string,
    model: AgentOf,
    results: readonly ClientCallResult[],
    threadId: string | undefined,
    threadParam: string,
  ): Promise<Turn> {
    const first = results[0];
    const rows = await this.runs.waitingForClientCall(tenantId, first.callId, threadId, 2);
    if (rows.length === 0) {
      throw new OpenAiException(
        400,
        OpenAiErrorCode.ToolCallNotFound,
        `no paused run waits for the tool call "${first.callId}" (the run ended, was cancelled, or already has its result)`,
        first.param,
      );
    }
    if (rows.length > 1) {
      throw OpenAiException.invalid(
        first.param,
        `several paused runs wait for the tool call "${first.callId}": send ${threadParam}`,
      );
    }
    const run = rows[0];
    if (run.agent_id !== model.agentId) {
      throw OpenAiException.invalid('model', `the paused run belongs to the model "${run.agent_id}"`);
    }
    const calls = run.waiting.client_calls ?? [];
    for (const r of results) {
      if (!calls.some((c) => c.id === r.callId)) {
        throw OpenAiException.invalid(r.param, `the paused run did not ask for the tool call "${r.callId}"`);
      }
    }
    const missing = calls.filter((c) => !results.some((r) => r.callId === c.id));
    if (missing.length) {
      throw OpenAiException.invalid(
        first.param.replace(/\[\d+\].*$/, ''),
        `the paused run waits for the results of every tool call: missing ${missing.map((c) => c.id).join(', ')}`,
      );
    }
    const cursor = (await this.reader.lastSeq(run.id)) ?? '0-0';
    const usageBefore = await this.runs.meteredUsage(run.id);
    await this.runs.answerClientCalls(
      run.id,
      run.waiting,
      results.map((r) => ({ tool_call_id: r.callId, output: r.output })),
    );
    return {
      runId: run.id,
      threadId: run.thread_id,
      cursor,
      answered: new Set(calls.map((c) => c.task_id)),
      usageBefore,
    };
  }

  /**
   * The answer to the question a waiting run asked (`ask_user`), as the user's text: the run goes
   * on where it stopped. The text is the answer when the question's schema takes a string, else
   * it must be JSON that the schema takes.
   */
  async answerQuestion(tenantId: string, runId: string, text: string, param: string): Promise<Turn> {
    const waiting = await this.runs.waitingOf(runId);
    if (!waiting) {
      throw OpenAiException.invalid(param, `run ${runId} no longer waits for an answer`);
    }
    const type = (waiting.input_schema as { type?: unknown } | undefined)?.type;
    let answer: unknown = text;
    if (type !== undefined && type !== 'string') {
      try {
        answer = JSON.parse(text);
      } catch {
        throw OpenAiException.invalid(
          param,
          `the question waits for JSON matching ${JSON.stringify(waiting.input_schema)}: send it as the message's text`,
        );
      }
    }
    const cursor = (await this.reader.lastSeq(runId)) ?? '0-0';
    const usageBefore = await this.runs.meteredUsage(runId);
    const run = await this.runs.get(tenantId, runId);
    await this.runs.resume(tenantId, runId, answer);
    return { runId, threadId: run.thread_id, cursor, answered: new Set([waiting.task_id]), usageBefore };
  }

  /** What the response says: the answer, the client calls the run now waits for, or a failure. */
  async outcome(turn: Turn, tenantId: string, ended: RunStatus): Promise<Outcome> {
    const { runId } = turn;
    if (ended === 'waiting') {
      const waiting = await this.runs.waitingOf(runId);
      // Calls this request answered may still be listed while an ask_user of the same step waits.
      const calls = (waiting?.client_calls ?? []).filter((c) => !turn.answered.has(c.task_id));
      if (calls.length) {
        return { kind: 'tool_calls', calls };
      }
      return { kind: 'question', content: waiting?.question ?? '' };
    }
    const final = await this.runs.get(tenantId, runId);
    if (ended !== 'succeeded') {
      return {
        kind: 'failed',
        status: ended,
        message: `the run ${ended}: ${(final.error as { message?: string } | null)?.message ?? 'no answer'}`,
      };
    }
    const output = final.output as { answer?: unknown; structured?: unknown } | null;
    return {
      kind: 'answer',
      content: typeof output?.answer === 'string' ? output.answer : '',
      ...(output?.structured !== undefined ? { structured: output.structured } : {}),
    };
  }

  /** The model usage metered since the turn began. */
  async usageOf(turn: Turn): Promise<Usage> {
    const now = await this.runs.meteredUsage(turn.runId);
    return {
      prompt_tokens: now.prompt_tokens - turn.usageBefore.prompt_tokens,
      completion_tokens: now.completion_tokens - turn.usageBefore.completion_tokens,
      total_tokens: now.total_tokens - turn.usageBefore.total_tokens,
    };
  }

  /**
   * Follows the run's events after the turn's cursor until it ends or waits again (not for a
   * task this request answered), handing the answer nodes' tokens to `onToken`.
   */
  follow(
    turn: Turn,
    onToken?: (token: AnswerToken) => void,
    onStart?: (taskId: string) => void,
  ): Promise<RunStatus> {
    return followRun({
      hub: this.hub,
      ds: this.ds,
      runId: turn.runId,
      cursor: turn.cursor,
      answered: turn.answered,
      onEvent: (e) => {
        if (e.event_type === 'node_started' && onStart) {
          onStart((e.payload as { task_id: string }).task_id);
        }
        if (e.event_type === 'token' && onToken && isAnswerNode((e.payload as { node: string }).node)) {
          onToken(e.payload as AnswerToken);
        }
      },
    });
  }

  /**
   * Follows the turn handing the answer's text to `onText` as it streams, each piece once: a
   * retried answer node's text is held until it passes what was already sent (`AnswerRelay`).
   * `diverged`: the retry said something else than what was sent, which cannot be taken back —
   * the caller ends its stream with an error (the run goes on and keeps its answer).
   */
  async followText(turn: Turn, onText: (text: string) => void): Promise<RunStatus | 'diverged'> {
    let diverged = false;
    const relay = new AnswerRelay();
    const ended = await this.follow(
      turn,
      (token) => {
        if (diverged) {
          return;
        }
        const text = relay.accept(token);
        if (typeof text !== 'string') {
          diverged = true;
        } else if (text) {
          onText(text);
        }
      },
      (taskId) => relay.started(taskId),
    );
    return diverged ? 'diverged' : ended;
  }

  /** The run's status now, without waiting (a response read back while its run works). */
  async statusOf(tenantId: string, runId: string): Promise<RunStatus> {
    return (await this.runs.get(tenantId, runId)).status;
  }
}
