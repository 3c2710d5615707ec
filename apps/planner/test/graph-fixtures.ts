import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestStack, nextPause, readSse } from '@switchyard/testing';

// The graph e2e specs' fixtures: RAGFlow DSLs and what the upstream engines did with them
// (libs/graph/fixtures, Apache-2.0; see its README). Each spec types the golden fields it reads.

export const FIXTURES = join(__dirname, '../../../libs/graph/fixtures');

/** A golden (`expected/<fixture>.<scenario>.json`), typed by the caller. */
export const golden = <G>(name: string): G =>
  JSON.parse(readFileSync(join(FIXTURES, 'expected', `${name}.json`), 'utf8')) as G;

/** A RAGFlow DSL as the editor exported it (`ragflow/<file>`). */
export const dsl = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, 'ragflow', name), 'utf8')) as Record<string, unknown>;

/** What the goldens record of the model: the scripted replies and each call's messages. */
export interface GoldenScript {
  inputs: { scripted_llm: { reply: string }[] };
  llm: { messages: { role: string; content: string }[] }[];
}

export interface GoldenEvent {
  event: string;
  component_id?: string;
  content?: string;
  inputs?: unknown;
  tips?: string;
  outputs?: { content?: string } | string;
}

/**
 * A RAGFlow stream reduced to what the goldens compare: names, component ids, each Message's
 * text (chunks joined up to its `message_end`), the forms asked, the final content.
 */
export function reduceRagflow(events: GoldenEvent[]): unknown[] {
  const out: unknown[] = [];
  let text: string | null = null;
  for (const e of events) {
    if (e.event === 'message') {
      text = (text ?? '') + (e.content ?? '');
      continue;
    }
    if (text !== null) {
      out.push(['message', text]);
      text = null;
    }
    if (e.event === 'node_started' || e.event === 'node_finished') {
      out.push([e.event, e.component_id]);
    } else if (e.event === 'user_inputs') {
      out.push([e.event, e.tips, e.inputs]);
    } else if (e.event === 'workflow_finished') {
      out.push([e.event, typeof e.outputs === 'string' ? e.outputs : e.outputs?.content]);
    } else {
      out.push([e.event]);
    }
  }
  return out;
}

/** The run's whole stream in RAGFlow's vocabulary (`?format=ragflow`), as golden events. */
export async function ragflowEventsOf(stack: TestStack, runId: string, key: string): Promise<GoldenEvent[]> {
  const read = await readSse(`${stack.gatewayUrl}/v1/runs/${runId}/events?format=ragflow`, {
    headers: { Authorization: `Bearer ${key}` },
    timeoutMs: 30_000,
  });
  expect(read.status).toBe(200);
  return read.frames.map((f) => {
    const body = JSON.parse(f.data) as { event: string; message_id: string; data: Record<string, unknown> };
    expect(body.event).toBe(f.event);
    expect(body.message_id).toBe(runId);
    return { event: body.event, ...body.data } as GoldenEvent;
  });
}
/** The scripted model answers with the golden's replies, each only if the prompt is RAGFlow's. */
export async function scriptGoldenReplies(stack: TestStack, g: GoldenScript): Promise<void> {
  const rules = g.inputs.scripted_llm.map((r, i) => {
    const [system, user] = g.llm[i].messages;
    return {
      name: `golden-${i}`,
      times: 1,
      when: { system_includes: system.content, user_includes: user.content },
      reply: { content: r.reply },
    };
  });
  await putScript(stack, { strict: true, models: ['scripted'], rules });
}

/** Every model call matched its golden rule in order, with RAGFlow's system prompt. */
export async function expectGoldenPrompts(stack: TestStack, g: Pick<GoldenScript, 'llm'>): Promise<void> {
  const requests = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as {
    rule: string;
    system: string;
  }[];
  expect(requests.map((q) => q.rule)).toEqual(g.llm.map((_, i) => `golden-${i}`));
  expect(requests.map((q) => q.system)).toEqual(g.llm.map((c) => c.messages[0].content.slice(0, 4000)));
}

/** Replaces the scripted model server's script (an object, or a script file's text) and clears its request log. */
export function putScript(stack: TestStack, script: unknown): Promise<void> {
  return stack.putScript(script);
}

export type Cpn = { name: string; params?: Record<string, unknown>; downstream?: string[] };

/** A components-form canvas: Begin at `begin` leading to the first component, upstream derived. */
export function canvas(components: Record<string, Cpn>): Record<string, unknown> {
  const all: Record<string, Cpn> = {
    begin: { name: 'Begin', params: { mode: 'conversational' }, downstream: [Object.keys(components)[0]] },
    ...components,
  };
  const upstream = (id: string) => Object.keys(all).filter((k) => all[k].downstream?.includes(id));
  return {
    components: Object.fromEntries(
      Object.entries(all).map(([id, c]) => [
        id,
        {
          obj: { component_name: c.name, params: c.params ?? {} },
          downstream: c.downstream ?? [],
          upstream: upstream(id),
        },
      ]),
    ),
    globals: {},
    variables: {},
  };
}

/**
 * Runs `agentId` on the golden's first query and answers the form each later turn of it resumes
 * with; answers the run id (the run may still be going).
 */
export async function runGoldenTurns(
  stack: TestStack,
  agentId: string,
  g: { inputs: { turns: { query: string; resume?: Record<string, unknown> }[] } },
): Promise<string> {
  const res = await stack.api('POST', '/v1/runs', {
    agent_id: agentId,
    input: { prompt: g.inputs.turns[0].query },
  });
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  let asked = '';
  for (const turn of g.inputs.turns.slice(1)) {
    // Each pause is a new ask_user task: wait for the next one, not the one just answered.
    const waiting = await nextPause(stack, runId, asked);
    expect(waiting.question.length).toBeGreaterThan(0);
    asked = waiting.task_id;
    expect((await stack.api('POST', `/v1/runs/${runId}/resume`, { input: turn.resume })).status).toBe(202);
  }
  return runId;
}
