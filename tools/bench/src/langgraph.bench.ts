import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import {
  Annotation,
  END,
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ChatOpenAI } from '@langchain/openai';
import type pg from 'pg';
import { z } from 'zod';
import { evaluate } from './calculator';
import { ScratchDatabase } from './scratch-db';
import type { ConcurrentSample, RunSample } from './types';

/**
 * `mirror`: the nodes of Switchyard's default agent (intake → memory → planner ⇄ (calculator →
 * reflection) → output), each LLM node with Switchyard's system prompt, tool and reply schema, so
 * both systems make the same LLM requests. `minimal`: planner ⇄ calculator, the planner's last reply
 * is the answer.
 */
export type LangGraphVariant = 'mirror' | 'minimal';

// The system prompts of Switchyard's nodes (apps/planner, apps/reflection, apps/output): the
// scripted model server recognises each node by its marker, and prompt sizes stay comparable.
const PLANNER_SYSTEM = `[switchyard:planner] You plan the next step of an AI agent's work on the user's request.
Call one or more of the offered tools when they are needed (several calls run in parallel).
When the results so far are enough to answer, reply briefly without calling any tool: the answer
itself is written by the output step.`;
const INTAKE_SYSTEM = `[switchyard:intake] You read the user's message at the start of a turn.
Reply with one JSON object and nothing else: {"task_goal": "<what the user wants, one sentence>",
"scenario": "<kind of request, one or two words>", "output_style": "<how the answer should read>"}.`;
const REFLECTION_SYSTEM = `[switchyard:reflection] You judge the results of the tool calls just made against the
user's task. Reply with one JSON object and nothing else: {"conclusion": "<one or two sentences>",
"match": "full" | "part" | "none", "is_finished": <the task can be answered now>,
"is_sufficient": <the results are enough for this step>}.`;
const OUTPUT_SYSTEM = `[switchyard:output] You write the final answer to the user's request from the work
done in this turn (tool results below). Answer in Markdown, directly, without mentioning tools.`;

const CALCULATOR_TOOL = {
  type: 'function' as const,
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string', description: 'e.g. 2+3*4' } },
      required: ['expression'],
      additionalProperties: false,
    },
  },
};

/** One step's record, appended to the `actions` channel (Switchyard keeps the same per action). */
interface BenchAction {
  node: string;
  summary: string;
  result: unknown;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  next: string[];
  at: string;
}

const BenchState = Annotation.Root({
  ...MessagesAnnotation.spec,
  task_goal: Annotation<string>(),
  actions: Annotation<BenchAction[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
type State = typeof BenchState.State;
type Update = typeof BenchState.Update;

function usageOf(m: AIMessage | AIMessageChunk | undefined): BenchAction['usage'] {
  const u = m?.usage_metadata;
  return {
    prompt_tokens: u?.input_tokens ?? 0,
    completion_tokens: u?.output_tokens ?? 0,
    total_tokens: u?.total_tokens ?? 0,
  };
}

function action(node: string, summary: string, result: unknown, next: string[], m?: AIMessage): BenchAction {
  return { node, summary, result, usage: usageOf(m), next, at: new Date().toISOString() };
}

function lastAi(messages: readonly BaseMessage[]): AIMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (AIMessage.isInstance(messages[i])) {
      return messages[i] as AIMessage;
    }
  }
  return undefined;
}

// The schemas Switchyard's intake and reflection ask the model for (apps/planner IntakeReplySchema
// in its strict form, apps/reflection ReflectionSchema).
const IntakeReply = z.object({
  task_goal: z.string(),
  scenario: z.string().nullable(),
  output_style: z.string().nullable(),
});
const ReflectionVerdict = z.object({
  conclusion: z.string().min(1),
  match: z.enum(['full', 'part', 'none']),
  is_finished: z.boolean(),
  is_sufficient: z.boolean(),
});

/** Wraps a node so the time spent in it is added to its thread's total in `times`. */
function timed(times: Map<string, number>, fn: (s: State) => Promise<Update>) {
  return async (s: State, config: LangGraphRunnableConfig): Promise<Update> => {
    const t0 = performance.now();
    try {
      return await fn(s);
    } finally {
      const thread = String(config.configurable?.['thread_id']);
      times.set(thread, (times.get(thread) ?? 0) + performance.now() - t0);
    }
  };
}

function buildGraph(
  variant: LangGraphVariant,
  llmBaseUrl: string,
  saver: PostgresSaver,
  times: Map<string, number>,
) {
  const chat = () =>
    new ChatOpenAI({
      model: 'scripted',
      apiKey: 'scripted',
      configuration: { baseURL: llmBaseUrl },
      maxRetries: 0,
      streamUsage: true,
      temperature: 0,
    });
  const plannerModel = chat().bindTools([CALCULATOR_TOOL]);
  const model = chat();
  // Intake and reflection ask for their JSON natively, as Switchyard's nodes do (response_format
  // json_schema with the same schemas): langchain's own structured output, the raw reply kept.
  const intakeModel = model.withStructuredOutput(IntakeReply, { method: 'jsonSchema', includeRaw: true });
  const reflectionModel = model.withStructuredOutput(ReflectionVerdict, {
    method: 'jsonSchema',
    includeRaw: true,
  });

  const intake = async (s: State): Promise<Update> => {
    const prompt = String(s.messages[0]?.content ?? '');
    const { raw, parsed } = await intakeModel.invoke([
      new SystemMessage(INTAKE_SYSTEM),
      new HumanMessage(prompt),
    ]);
    const reply = raw as AIMessage;
    const goal = parsed.task_goal || prompt;
    return { task_goal: goal, actions: [action('intake', `Task goal: ${goal}`, parsed, ['memory'], reply)] };
  };

  // Switchyard's memory node compares the prompt with the thread's earlier turns (none here).
  const memory = async (): Promise<Update> => ({
    actions: [action('memory', 'No related history found.', { found: 0 }, ['planner'])],
  });

  const planner = async (s: State): Promise<Update> => {
    const notes = s.actions
      .filter((a) => a.node === 'reflection' || a.node === 'memory')
      .map((a) => `- ${a.node}: ${a.summary}`);
    const system =
      variant === 'mirror'
        ? [
            PLANNER_SYSTEM,
            s.task_goal ? `Task goal: ${s.task_goal}` : '',
            notes.length ? `Notes so far:\n${notes.join('\n')}` : '',
          ]
            .filter(Boolean)
            .join('\n\n')
        : PLANNER_SYSTEM;
    const reply = await plannerModel.invoke([new SystemMessage(system), ...s.messages]);
    const calls = reply.tool_calls ?? [];
    const next = calls.length ? calls.map((c) => c.name) : [variant === 'mirror' ? 'output' : END];
    return {
      messages: [reply],
      actions: [
        action(
          'planner',
          calls.length ? `Calling ${calls.map((c) => c.name).join(', ')}.` : 'Ready to answer.',
          { content: reply.content, tool_calls: calls },
          next,
          reply,
        ),
      ],
    };
  };

  const calculator = async (s: State): Promise<Update> => {
    const calls = (lastAi(s.messages)?.tool_calls ?? []).filter((c) => c.name === 'calculator');
    const messages: ToolMessage[] = [];
    const actions: BenchAction[] = [];
    for (const c of calls) {
      const expression = String((c.args as { expression?: unknown }).expression ?? '');
      const value = evaluate(expression);
      messages.push(
        new ToolMessage({ content: JSON.stringify({ expression, value }), tool_call_id: c.id ?? '' }),
      );
      actions.push(
        action('calculator', `${expression} = ${value}`, { expression, value }, [
          variant === 'mirror' ? 'reflection' : 'planner',
        ]),
      );
    }
    return { messages, actions };
  };

  const reflection = async (s: State): Promise<Update> => {
    const call = lastAi(s.messages);
    const idx = call ? s.messages.lastIndexOf(call) : s.messages.length;
    const messages: BaseMessage[] = [
      new SystemMessage(REFLECTION_SYSTEM),
      new HumanMessage(`Task: ${s.task_goal}`),
      ...s.messages.slice(idx),
    ];
    const { raw, parsed: verdict } = await reflectionModel.invoke(messages);
    return {
      actions: [action('reflection', verdict.conclusion, verdict, ['planner'], raw as AIMessage)],
    };
  };

  const output = async (s: State): Promise<Update> => {
    const evidence = s.actions
      .filter((a) => a.node === 'calculator')
      .map((a) => `- ${a.node}: ${JSON.stringify(a.result)}`);
    const system = [
      OUTPUT_SYSTEM,
      evidence.length ? `Results:\n${evidence.join('\n')}` : 'No tool was used.',
    ].join('\n\n');
    let answer = '';
    let last: AIMessageChunk | undefined;
    const prompt = String(s.messages[0]?.content ?? '');
    for await (const chunk of await model.stream([new SystemMessage(system), new HumanMessage(prompt)])) {
      last = last ? last.concat(chunk) : chunk;
      answer += typeof chunk.content === 'string' ? chunk.content : '';
    }
    return {
      messages: [new AIMessage(answer)],
      actions: [
        action('output', `Answered (${answer.length} characters).`, { answer }, [], last as AIMessage),
      ],
    };
  };

  const hasToolCalls = (s: State) => ((lastAi(s.messages)?.tool_calls ?? []).length > 0 ? 'tools' : 'answer');
  if (variant === 'minimal') {
    return new StateGraph(BenchState)
      .addNode('planner', timed(times, planner))
      .addNode('calculator', timed(times, calculator))
      .addEdge(START, 'planner')
      .addConditionalEdges('planner', hasToolCalls, { tools: 'calculator', answer: END })
      .addEdge('calculator', 'planner')
      .compile({ checkpointer: saver });
  }
  return new StateGraph(BenchState)
    .addNode('intake', timed(times, intake))
    .addNode('memory', timed(times, memory))
    .addNode('planner', timed(times, planner))
    .addNode('calculator', timed(times, calculator))
    .addNode('reflection', timed(times, reflection))
    .addNode('output', timed(times, output))
    .addEdge(START, 'intake')
    .addEdge('intake', 'memory')
    .addEdge('memory', 'planner')
    .addConditionalEdges('planner', hasToolCalls, { tools: 'calculator', answer: 'output' })
    .addEdge('calculator', 'reflection')
    .addEdge('reflection', 'planner')
    .addEdge('output', END)
    .compile({ checkpointer: saver });
}

type Graph = ReturnType<typeof buildGraph>;

export interface LangGraphRunOptions {
  prompt: string;
  /** Expected calculator calls: a run with another count is an error. */
  rounds: number;
  durability?: 'sync' | 'async' | 'exit';
}

/** LangGraph.js with PostgresSaver in a fresh database of its own; the graphs run in this process. */
export class LangGraphBench {
  private readonly graphs = new Map<LangGraphVariant, Graph>();
  /** Time spent inside the nodes, per thread. */
  private readonly nodeTimes = new Map<string, number>();

  private constructor(
    private readonly saver: PostgresSaver,
    private readonly pool: pg.Pool,
    private readonly db: ScratchDatabase,
    private readonly llmBaseUrl: string,
  ) {}

  /** Creates the database and the saver's tables; `llmBaseUrl` is the model server's …/v1 URL. */
  static async create(postgresUrl: string, llmBaseUrl: string): Promise<LangGraphBench> {
    const db = await ScratchDatabase.create(postgresUrl, 'switchyard_bench_lg');
    // What PostgresSaver.fromConnString(url) does, on a pool that tolerates the drop at the end.
    const saver = new PostgresSaver(db.pool());
    const bench = new LangGraphBench(saver, db.pool(2), db, llmBaseUrl);
    try {
      await saver.setup();
    } catch (err) {
      await bench.close();
      throw err;
    }
    return bench;
  }

  private graph(variant: LangGraphVariant): Graph {
    let g = this.graphs.get(variant);
    if (!g) {
      g = buildGraph(variant, this.llmBaseUrl, this.saver, this.nodeTimes);
      this.graphs.set(variant, g);
    }
    return g;
  }

  /** One run on a new thread: wall time from the call to the stream's end (checkpoints written). */
  async run(variant: LangGraphVariant, opts: LangGraphRunOptions): Promise<RunSample> {
    const threadId = `bench-${randomBytes(8).toString('hex')}`;
    const { wallMs, nodeMs, nodes } = await this.execute(variant, threadId, opts);
    const bytes = await this.checkpointBytes(threadId, nodes);
    return { wallMs, nodeMs, steps: nodes.length, ...bytes, otherBytes: 0 };
  }

  /** `count` runs at once on separate threads (one process, one event loop). */
  async concurrent(
    variant: LangGraphVariant,
    opts: LangGraphRunOptions,
    count: number,
  ): Promise<ConcurrentSample> {
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: count }, () =>
        this.execute(variant, `bench-${randomBytes(8).toString('hex')}`, opts),
      ),
    );
    const totalMs = performance.now() - t0;
    return {
      totalMs,
      runs: count,
      steps: results.reduce((n, r) => n + r.nodes.length, 0),
      latenciesMs: results.map((r) => r.wallMs),
    };
  }

  private async execute(variant: LangGraphVariant, threadId: string, opts: LangGraphRunOptions) {
    const graph = this.graph(variant);
    const nodes: string[] = [];
    const t0 = performance.now();
    const stream = await graph.stream(
      { messages: [new HumanMessage(opts.prompt)] },
      {
        configurable: { thread_id: threadId },
        recursionLimit: 10_000,
        streamMode: 'updates',
        ...(opts.durability ? { durability: opts.durability } : {}),
      },
    );
    for await (const chunk of stream) {
      nodes.push(...Object.keys(chunk as Record<string, unknown>));
    }
    const wallMs = performance.now() - t0;
    const calls = nodes.filter((n) => n === 'calculator').length;
    if (calls !== opts.rounds) {
      throw new Error(
        `LangGraph ${variant}: expected ${opts.rounds} calculator steps, got ${calls} (${nodes.join(' ')})`,
      );
    }
    const nodeMs = this.nodeTimes.get(threadId) ?? 0;
    this.nodeTimes.delete(threadId);
    return { wallMs, nodeMs, nodes };
  }

  /**
   * What the thread's checkpoints take in Postgres (pg_column_size of the stored payloads:
   * checkpoints.checkpoint + metadata, checkpoint_blobs.blob, checkpoint_writes.blob), in all and
   * per step. A step's bytes: its checkpoint row, the blobs of the channel versions it created,
   * and the writes its task saved (stored under the checkpoint the step started from).
   */
  private async checkpointBytes(
    threadId: string,
    nodes: readonly string[],
  ): Promise<Pick<RunSample, 'bytes' | 'firstToolBytes' | 'lastToolBytes'>> {
    const [cps, blobs, writes] = await Promise.all([
      this.pool.query<{
        id: string;
        parent: string | null;
        step: number;
        bytes: number;
        cv: Record<string, string>;
      }>(
        `SELECT checkpoint_id AS id, parent_checkpoint_id AS parent, (metadata->>'step')::int AS step,
                pg_column_size(checkpoint) + pg_column_size(metadata) AS bytes,
                checkpoint->'channel_versions' AS cv
           FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id`,
        [threadId],
      ),
      this.pool.query<{ channel: string; version: string; bytes: number }>(
        `SELECT channel, version, coalesce(pg_column_size(blob), 0) AS bytes
           FROM checkpoint_blobs WHERE thread_id = $1 AND checkpoint_ns = ''`,
        [threadId],
      ),
      this.pool.query<{ id: string; bytes: string }>(
        `SELECT checkpoint_id AS id, sum(pg_column_size(blob)) AS bytes
           FROM checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' GROUP BY checkpoint_id`,
        [threadId],
      ),
    ]);
    const blobBytes = new Map(blobs.rows.map((b) => [`${b.channel}\u0000${b.version}`, Number(b.bytes)]));
    const writeBytes = new Map(writes.rows.map((w) => [w.id, Number(w.bytes)]));
    const byId = new Map(cps.rows.map((c) => [c.id, c]));
    let total = 0;
    for (const c of cps.rows) {
      total += Number(c.bytes);
    }
    for (const b of blobBytes.values()) {
      total += b;
    }
    for (const w of writeBytes.values()) {
      total += w;
    }
    const perStep: { node: string; bytes: number }[] = [];
    for (const c of cps.rows) {
      if (c.step < 1) {
        continue; // the input checkpoint and the one that applies the input: no node ran
      }
      const parent = c.parent ? byId.get(c.parent) : undefined;
      let bytes = Number(c.bytes) + (c.parent ? (writeBytes.get(c.parent) ?? 0) : 0);
      for (const [channel, version] of Object.entries(c.cv ?? {})) {
        if (parent?.cv?.[channel] !== version) {
          bytes += blobBytes.get(`${channel}\u0000${version}`) ?? 0;
        }
      }
      perStep.push({ node: nodes[c.step - 1] ?? '?', bytes });
    }
    const tools = perStep.filter((s) => s.node === 'calculator');
    return {
      bytes: total,
      firstToolBytes: tools[0]?.bytes ?? Number.NaN,
      lastToolBytes: tools[tools.length - 1]?.bytes ?? Number.NaN,
    };
  }

  async close(): Promise<void> {
    await this.saver.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    await this.db.drop();
  }
}
