import { createHmac, randomUUID } from 'node:crypto';
import { type Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as Client2 } from '@langchain/langgraph-sdk';
import { Client as Client1 } from 'langgraph-sdk-1';
import { useStream as useStream2 } from '@langchain/langgraph-sdk/react';
import { useStream as useStream1 } from 'langgraph-sdk-1/react';
import { createElement } from 'react';
import { type ReactTestRenderer, act, create } from 'react-test-renderer';
import { graphNodeName } from '@switchyard/contracts';
import { eventsKey } from '@switchyard/events';
import { TestStack, waitFor } from '@switchyard/testing';

// The LangGraph Platform-compatible surface through the real `@langchain/langgraph-sdk` (the
// 2.0.0 line and 1.15.0) against the running gateway: the rows of LANGGRAPH_API.md §7 that the
// gateway implements. Real services, the scripted model server (skeleton.script.json): a plain
// prompt is answered "The answer is ." token by token; [long-answer] streams 40 tokens; [slow]
// makes the planner answer after 4 s; [ask] asks the user's name (ask_user), then greets;
// [teleport] makes the run fail (the planner names a node that does not exist).

let stack: TestStack;
const ADMIN = `admin_${'l'.repeat(24)}`;

// React's act() expects to be told it runs in a test environment.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN, SWITCHYARD_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
  });
  const agent = await stack.api('POST', '/v1/agents', { name: 'agent', system_prompt: 'Be brief.' });
  expect(agent.status).toBe(201);
  const canvas = await stack.api('POST', '/v1/agents', {
    name: CANVAS_AGENT,
    kind: 'graph',
    dsl: {
      components: {
        begin: { obj: { component_name: 'Begin', params: {} }, downstream: [CANVAS_STOP], upstream: [] },
        [CANVAS_STOP]: {
          obj: { component_name: 'Message', params: { content: ['hello there'] } },
          downstream: [],
          upstream: ['begin'],
        },
      },
    },
  });
  expect(canvas.status).toBe(201);
}, 120_000);

/** A canvas agent whose Message a breakpoint stops before. */
const CANVAS_AGENT = 'stops';
const CANVAS_STOP = 'Message:Hello';

afterAll(async () => {
  await stack?.stop();
});

type Client = InstanceType<typeof Client2>;
type Part = { id?: string; event: string; data: unknown };
type Message = { type: string; content: string; id?: string };

const SDKS: [string, new (o: ConstructorParameters<typeof Client2>[0]) => Client][] = [
  ['2.0.0', Client2],
  ['1.15.0', Client1 as unknown as typeof Client2],
];

async function collect(stream: AsyncIterable<Part>): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const p of stream) {
    parts.push(p);
  }
  return parts;
}

/** The error a call rejected with (fails the test when it resolved). */
async function rejection(call: Promise<unknown>): Promise<Error & { status?: number }> {
  try {
    await call;
  } catch (err) {
    return err as Error & { status?: number };
  }
  throw new Error('the call resolved');
}

const human = (content: string) => ({ messages: [{ role: 'user', content }] });

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) {
      return v;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A proxy in front of the gateway that drops the connection of the first `POST …/runs/stream`
 * right after the part with id 2 (a network failure mid-stream); it records every request.
 */
async function droppingProxy(target: string): Promise<{
  url: string;
  requests: { method: string; url: string; lastEventId?: string }[];
  close: () => Promise<void>;
}> {
  const requests: { method: string; url: string; lastEventId?: string }[] = [];
  let dropped = false;
  const server: Server = createServer((req, res) => {
    const lastEventId = req.headers['last-event-id'];
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      ...(typeof lastEventId === 'string' ? { lastEventId } : {}),
    });
    const drop = !dropped && req.method === 'POST' && /\/runs\/stream$/.test(req.url ?? '');
    const up = request(
      `${target}${req.url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        let buffered = '';
        upRes.on('data', (chunk: Buffer) => {
          if (!drop) {
            res.write(chunk);
            return;
          }
          buffered += chunk.toString('utf8');
          for (let end = buffered.indexOf('\n\n'); end >= 0 && !dropped; end = buffered.indexOf('\n\n')) {
            const frame = buffered.slice(0, end + 2);
            buffered = buffered.slice(end + 2);
            res.write(frame);
            if (frame.startsWith('id: 2\n')) {
              dropped = true;
              res.socket?.destroy();
              upRes.destroy();
            }
          }
        });
        upRes.on('end', () => res.end());
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.each(SDKS)('@langchain/langgraph-sdk %s', (_version, SdkClient) => {
  let client: Client;

  beforeAll(() => {
    client = new SdkClient({ apiUrl: stack.gatewayUrl, apiKey: stack.key, callerOptions: { maxRetries: 0 } });
  });

  it('finds the agent as an assistant by search, id and graph id; 404 for an unknown one', async () => {
    const found = await client.assistants.search({ graphId: 'agent' });
    expect(found).toHaveLength(1);
    expect(typeof found[0].assistant_id).toBe('string');
    expect(found[0].graph_id).toBe('agent');
    const paged = (await client.assistants.search({ includePagination: true } as never)) as unknown as {
      assistants: { graph_id: string }[];
    };
    expect(paged.assistants.map((a) => a.graph_id)).toEqual(expect.arrayContaining(['default', 'agent']));

    const byId = await client.assistants.get(found[0].assistant_id);
    const byGraph = await client.assistants.get('agent');
    expect(byId.assistant_id).toBe(found[0].assistant_id);
    expect(byGraph.assistant_id).toBe(found[0].assistant_id);
    expect(byGraph.graph_id).toBe('agent');
    expect(byGraph.version).toBe(1);

    expect((await rejection(client.assistants.get('nope'))).status).toBe(404);
    const stranger = new SdkClient({
      apiUrl: stack.gatewayUrl,
      apiKey: 'sy_live_wrong',
      callerOptions: { maxRetries: 0 },
    });
    expect((await rejection(stranger.assistants.get('agent'))).status).toBe(401);
  }, 30_000);

  it('creates and gets threads with their metadata; if_exists do_nothing returns the same thread', async () => {
    const t = await client.threads.create({ metadata: { user: 'u1' } });
    const got = await client.threads.get(t.thread_id);
    expect(got.thread_id).toBe(t.thread_id);
    expect(got.metadata).toEqual({ user: 'u1' });
    expect(got.status).toBe('idle');
    const again = await client.threads.create({ threadId: t.thread_id, ifExists: 'do_nothing' });
    expect(again.thread_id).toBe(t.thread_id);
    expect((await rejection(client.threads.create({ threadId: t.thread_id }))).status).toBe(409);
    expect((await rejection(client.threads.get('4b7c0f62-8d0c-4d33-9d61-3f4b3a1c9e11'))).status).toBe(404);
  }, 30_000);

  it('streams values, updates and message tuples; the state, its history and a checkpoint follow', async () => {
    const t = await client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    const parts = await collect(
      client.runs.stream(t.thread_id, 'agent', {
        input: human('hello big world'),
        streamMode: ['values', 'updates', 'messages-tuple'],
        onRunCreated: (r) => {
          created = r;
        },
      }) as AsyncIterable<Part>,
    );
    expect(parts[0].event).toBe('metadata');
    const meta = parts[0].data as { run_id: string; thread_id: string };
    expect(meta.run_id).toBe(created?.run_id);
    expect(meta.thread_id).toBe(t.thread_id);
    for (const p of parts) {
      expect(typeof p.id).toBe('string');
    }
    expect(parts.map((p) => Number(p.id))).toEqual([...parts.keys()]);
    const tuples = parts.filter((p) => p.event === 'messages');
    expect(tuples.length).toBeGreaterThan(1);
    const [chunk, chunkMeta] = tuples[0].data as [Message, { langgraph_node: string }];
    expect(chunk.type).toBe('AIMessageChunk');
    expect(typeof chunk.id).toBe('string');
    expect(chunkMeta.langgraph_node).toBe('output');
    const streamed = tuples.map((p) => (p.data as [Message])[0].content).join('');
    const updates = parts.filter((p) => p.event === 'updates').map((p) => Object.keys(p.data as object)[0]);
    expect(updates).toEqual(expect.arrayContaining(['planner', 'output']));
    const last = parts[parts.length - 1];
    expect(last.event).toBe('values');
    const messages = (last.data as { messages: Message[] }).messages;
    expect(messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'hello big world'],
      ['ai', streamed],
    ]);
    expect(streamed).toMatch(/^The answer is/);

    const state = await client.threads.getState(t.thread_id);
    expect((state.values as { messages: Message[] }).messages).toHaveLength(2);
    expect(state.next).toEqual([]);
    const checkpointId = state.checkpoint.checkpoint_id as string;
    expect(typeof checkpointId).toBe('string');
    expect((await client.threads.get(t.thread_id)).status).toBe('idle');

    const history = await client.threads.getHistory(t.thread_id, { limit: 3 });
    expect(history).toHaveLength(3);
    expect(history[0].checkpoint.checkpoint_id as string).toBe(checkpointId);
    expect(history[1].checkpoint.checkpoint_id).toBe(history[0].parent_checkpoint?.checkpoint_id);
    const older = await client.threads.getState(t.thread_id, history[2].checkpoint.checkpoint_id as string);
    expect(older.checkpoint.checkpoint_id).toBe(history[2].checkpoint.checkpoint_id);
    const first = await client.threads.getState(t.thread_id, '1');
    expect((first.values as { messages: Message[] }).messages.map((m) => m.type)).toEqual(['human']);
    expect((await rejection(client.threads.getState(t.thread_id, '99999'))).status).toBe(404);
  }, 60_000);

  it('waits for the values; a failed run rejects, or gives __error__ with raiseError false', async () => {
    const t = await client.threads.create();
    const values = (await client.runs.wait(t.thread_id, 'agent', { input: human('hello') })) as {
      messages: Message[];
    };
    expect(values.messages.map((m) => m.type)).toEqual(['human', 'ai']);

    const failing = await client.threads.create();
    const err = await rejection(
      client.runs.wait(failing.thread_id, 'agent', { input: human('[teleport] go') }),
    );
    expect(err.message).toMatch(/teleport/);
    const again = await client.threads.create();
    const raw = (await client.runs.wait(again.thread_id, 'agent', {
      input: human('[teleport] go'),
      raiseError: false,
    })) as { __error__?: { error: string; message: string } };
    expect(typeof raw.__error__?.error).toBe('string');
    expect(raw.__error__?.message).toMatch(/teleport/);
    expect((await client.threads.get(again.thread_id)).status).toBe('error');
  }, 90_000);

  it('streams a failure as a last error part without throwing', async () => {
    const t = await client.threads.create();
    const parts = await collect(
      client.runs.stream(t.thread_id, 'agent', { input: human('[teleport] go') }) as AsyncIterable<Part>,
    );
    const last = parts[parts.length - 1];
    expect(last.event).toBe('error');
    expect((last.data as { message: string }).message).toMatch(/teleport/);
    expect(typeof (last.data as { error: string }).error).toBe('string');
  }, 60_000);

  it('creates a run, joins it from the start and after a part id; a join after the end gives nothing', async () => {
    const t = await client.threads.create();
    const run = await client.runs.create(t.thread_id, 'agent', {
      input: human('[long-answer] tell me'),
      streamMode: ['values', 'updates', 'messages-tuple'],
      streamResumable: true,
    });
    expect(['pending', 'running']).toContain((await client.runs.get(t.thread_id, run.run_id)).status);
    const all = await collect(
      client.runs.joinStream(t.thread_id, run.run_id, { lastEventId: '-1' }) as AsyncIterable<Part>,
    );
    expect(all[0]).toMatchObject({ id: '0', event: 'metadata' });
    expect(all[all.length - 1].event).toBe('values');
    expect(all.filter((p) => p.event === 'messages').length).toBeGreaterThan(10);
    const fromFour = await collect(
      client.runs.joinStream(t.thread_id, run.run_id, { lastEventId: '3' }) as AsyncIterable<Part>,
    );
    expect(fromFour[0].id).toBe('4');
    expect(fromFour).toEqual(all.slice(4));
    const valuesOnly = await collect(
      client.runs.joinStream(t.thread_id, run.run_id, {
        lastEventId: '-1',
        streamMode: ['values'],
      }) as AsyncIterable<Part>,
    );
    expect(valuesOnly.map((p) => p.event)).toEqual(['metadata', 'values']);
    expect(await collect(client.runs.joinStream(t.thread_id, run.run_id) as AsyncIterable<Part>)).toEqual([]);
    expect((await client.runs.get(t.thread_id, run.run_id)).status).toBe('success');
  }, 60_000);

  it('a join that names no modes replays the modes the run was created with', async () => {
    const t = await client.threads.create();
    const run = await client.runs.create(t.thread_id, 'agent', {
      input: human('hello'),
      streamMode: ['values'],
      streamResumable: true,
    });
    const joined = await collect(
      client.runs.joinStream(t.thread_id, run.run_id, { lastEventId: '-1' }) as AsyncIterable<Part>,
    );
    expect(joined[0].event).toBe('metadata');
    expect(new Set(joined.slice(1).map((p) => p.event))).toEqual(new Set(['values']));
    // A run created without modes streams values, LangGraph's default.
    const plain = await client.runs.create(t.thread_id, 'agent', { input: human('hello again') });
    await waitFor('the plain run to end', async () =>
      ['success', 'error'].includes((await client.runs.get(t.thread_id, plain.run_id)).status),
    );
    const replay = await collect(
      client.runs.joinStream(t.thread_id, plain.run_id, { lastEventId: '-1' }) as AsyncIterable<Part>,
    );
    expect(replay.map((p) => p.event)).toEqual(['metadata', ...replay.slice(1).map(() => 'values')]);
    expect(replay.length).toBeGreaterThan(1);
  }, 60_000);

  it('cancels a run followed by a live join, and another with wait; both end interrupted', async () => {
    const t = await client.threads.create();
    const run = await client.runs.create(t.thread_id, 'agent', { input: human('[slow] think') });
    const joined = collect(client.runs.joinStream(t.thread_id, run.run_id) as AsyncIterable<Part>);
    await new Promise((r) => setTimeout(r, 500));
    expect(await client.runs.cancel(t.thread_id, run.run_id)).toBeUndefined();
    const parts = await joined;
    expect(parts.filter((p) => p.event === 'values' || p.event === 'error')).toEqual([]);
    expect(
      (
        await until(
          () => client.runs.get(t.thread_id, run.run_id),
          (r) => r.status === 'interrupted',
        )
      ).status,
    ).toBe('interrupted');

    const t2 = await client.threads.create();
    const run2 = await client.runs.create(t2.thread_id, 'agent', { input: human('[slow] think again') });
    expect(await client.runs.cancel(t2.thread_id, run2.run_id, true)).toBeUndefined();
    expect((await client.runs.get(t2.thread_id, run2.run_id)).status).toBe('interrupted');
  }, 60_000);

  it('stops quietly when the caller aborts; on_disconnect cancel then interrupts the run', async () => {
    const t = await client.threads.create();
    const controller = new AbortController();
    let created = '';
    const seen: Part[] = [];
    try {
      for await (const p of client.runs.stream(t.thread_id, 'agent', {
        input: human('[long-answer] go on'),
        streamMode: ['messages-tuple'],
        onDisconnect: 'cancel',
        signal: controller.signal,
        onRunCreated: (r) => {
          created = r.run_id;
        },
      }) as AsyncIterable<Part>) {
        seen.push(p);
        if (seen.length === 3) {
          controller.abort();
        }
      }
    } catch (err) {
      // Aborting the fetch surfaces as an AbortError on some lines: that is the caller's own abort.
      expect((err as Error).name).toBe('AbortError');
    }
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const run = await until(
      () => client.runs.get(t.thread_id, created),
      (r) => r.status === 'interrupted',
    );
    expect(run.status).toBe('interrupted');
  }, 60_000);

  it('reconnects through Location with Last-Event-ID after the connection dropped, without a gap', async () => {
    const proxy = await droppingProxy(stack.gatewayUrl);
    try {
      const viaProxy = new SdkClient({
        apiUrl: proxy.url,
        apiKey: stack.key,
        callerOptions: { maxRetries: 0 },
      });
      const t = await viaProxy.threads.create();
      const parts = await collect(
        viaProxy.runs.stream(t.thread_id, 'agent', {
          input: human('[long-answer] keep going'),
          streamMode: ['values', 'updates', 'messages-tuple'],
        }) as AsyncIterable<Part>,
      );
      expect(parts.map((p) => Number(p.id))).toEqual([...parts.keys()]);
      expect(parts[parts.length - 1].event).toBe('values');
      const rejoin = proxy.requests.find((r) => r.method === 'GET' && r.url.includes('/stream'));
      // The SDK may lose the part that was in flight when the socket broke: it asks from the
      // last part it parsed (1 or 2), and the ids above show nothing was missed or repeated.
      expect(rejoin).toEqual({
        method: 'GET',
        url: expect.stringMatching(new RegExp(`^/threads/${t.thread_id}/runs/[0-9a-f-]{36}/stream`)),
        lastEventId: expect.stringMatching(/^[12]$/),
      });
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('asks the user as an interrupt and resumes with command.resume', async () => {
    const t = await client.threads.create();
    const parts = await collect(
      client.runs.stream(t.thread_id, 'agent', { input: human('[ask] greet me') }) as AsyncIterable<Part>,
    );
    const last = parts[parts.length - 1];
    expect(last.event).toBe('values');
    const interrupts = (last.data as { __interrupt__: { value: { question: string } }[] }).__interrupt__;
    expect(interrupts[0].value.question).toBe('What is your name?');
    const runId = (parts[0].data as { run_id: string }).run_id;
    expect((await client.runs.get(t.thread_id, runId)).status).toBe('success');
    // A join while the run waits: nothing new without Last-Event-ID, the whole stream from -1.
    expect(await collect(client.runs.joinStream(t.thread_id, runId) as AsyncIterable<Part>)).toEqual([]);
    const replay = await collect(
      client.runs.joinStream(t.thread_id, runId, {
        lastEventId: '-1',
        streamMode: ['values'],
      }) as AsyncIterable<Part>,
    );
    expect(replay.map((p) => p.event)).toEqual(['metadata', 'values']);
    expect(replay[1].data).toEqual(last.data);
    const thread = await client.threads.get(t.thread_id);
    expect(thread.status).toBe('interrupted');
    const state = await client.threads.getState(t.thread_id);
    expect(state.next).toHaveLength(1);
    expect(state.tasks[0].interrupts[0].value).toMatchObject({ question: 'What is your name?' });

    const bad = await rejection(
      client.runs.wait(t.thread_id, 'agent', { command: { resume: { nom: 'x' } } }),
    );
    expect(bad.status).toBe(400);
    const values = (await client.runs.wait(t.thread_id, 'agent', {
      command: { resume: { name: 'Ada' } },
    })) as {
      messages: Message[];
    };
    expect(values.messages[values.messages.length - 1]).toMatchObject({ type: 'ai', content: 'Hello Ada!' });
    expect((await client.threads.get(t.thread_id)).status).toBe('idle');
    expect(
      (await rejection(client.runs.wait(t.thread_id, 'agent', { command: { resume: 'again' } }))).status,
    ).toBe(409);
  }, 90_000);

  it('maps multitask strategies; refuses what it cannot honour with a 400 naming it', async () => {
    const t = await client.threads.create();
    const first = await client.runs.create(t.thread_id, 'agent', { input: human('[slow] one') });
    expect((await rejection(client.runs.create(t.thread_id, 'agent', { input: human('two') }))).status).toBe(
      409,
    );
    const queued = await client.runs.create(t.thread_id, 'agent', {
      input: human('three'),
      multitaskStrategy: 'enqueue',
    });
    const interrupting = await client.runs.create(t.thread_id, 'agent', {
      input: human('four'),
      multitaskStrategy: 'interrupt',
    });
    const done = await until(
      () => client.runs.get(t.thread_id, interrupting.run_id),
      (r) => r.status === 'success',
      45_000,
    );
    expect(done.status).toBe('success');
    expect((await client.runs.get(t.thread_id, first.run_id)).status).toBe('interrupted');
    expect(['interrupted', 'success']).toContain((await client.runs.get(t.thread_id, queued.run_id)).status);

    const refused: [string, Record<string, unknown>][] = [
      ['stream_subgraphs', { streamSubgraphs: true }],
      ['multitask_strategy', { multitaskStrategy: 'rollback' }],
      ['checkpoint.checkpoint_ns', { checkpoint: { checkpoint_id: '1', checkpoint_ns: 'sub' } }],
      // A new turn only from a checkpoint that ends one (version 1 opened the first turn).
      ['input', { checkpoint: { checkpoint_id: '1', checkpoint_ns: '' } }],
      ['interrupt_before[0]', { interruptBefore: ['planer'] }],
      ['webhook', { webhook: 'http://192.168.7.7/hook' }],
      ['input.files', { input: { messages: [{ role: 'user', content: 'x' }], files: [] } }],
      ['stream_mode', { streamMode: ['debug'] }],
    ];
    for (const [field, options] of refused) {
      const err = await rejection(
        client.runs.create(t.thread_id, 'agent', { input: human('x'), ...options } as never),
      );
      expect(err.status).toBe(400);
      expect(err.message).toContain(field);
    }
    const missing = randomUUID();
    expect((await rejection(client.runs.create(missing, 'agent', { input: human('x') }))).status).toBe(404);
    const made = await client.runs.wait(missing, 'agent', { input: human('hello'), ifNotExists: 'create' });
    expect((made as { messages: Message[] }).messages).toHaveLength(2);
  }, 120_000);
});

describe.each(SDKS)('time travel through @langchain/langgraph-sdk %s', (_version, SdkClient) => {
  let client: Client;
  type State = Awaited<ReturnType<Client['threads']['getState']>>;
  const requests = async () =>
    ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { system: string }[]).map(
      (r) => /\[switchyard:([a-z-]+)\]/.exec(r.system)?.[1] ?? '?',
    );
  const writer = (s: State) => Object.keys((s.metadata as { writes?: object } | null)?.writes ?? {})[0];

  beforeAll(() => {
    client = new SdkClient({ apiUrl: stack.gatewayUrl, apiKey: stack.key });
  });

  it('runs from an earlier checkpoint: what came before is reused, the history holds both branches', async () => {
    const t = await client.threads.create();
    await client.runs.wait(t.thread_id, 'default', { input: human('what is 2+3*4?') });
    const history = (await client.threads.getHistory(t.thread_id, { limit: 50 })) as State[];
    expect(history.map(writer)).toEqual([
      'output',
      'planner',
      'reflection',
      'calculator',
      'planner',
      'memory',
      'intake',
      'start',
    ]);
    // Every checkpoint says where it would continue: the nodes its step routed to.
    expect(history.map((s) => s.next)).toEqual([
      [],
      ['output'],
      ['planner'],
      ['reflection'],
      ['calculator'],
      ['planner'],
      ['memory'],
      ['intake'],
    ]);
    expect(history[3].tasks.map((task) => task.name)).toEqual(['reflection']);
    const calc = history[3];
    const before = (await requests()).length;
    const values = (await client.runs.wait(t.thread_id, 'default', {
      input: null,
      checkpointId: calc.checkpoint.checkpoint_id,
    } as never)) as { messages: Message[] };
    expect(values.messages.at(-1)?.content).toContain('14');
    expect(values.messages).toHaveLength(2);
    // Only what followed the calculator ran again.
    expect((await requests()).slice(before)).toEqual(['reflection', 'planner', 'output']);

    const after = (await client.threads.getHistory(t.thread_id, { limit: 50 })) as State[];
    expect(after).toHaveLength(history.length + 4);
    const fork = after[3];
    expect(fork.metadata).toMatchObject({ source: 'fork' });
    expect(fork.parent_checkpoint?.checkpoint_id).toBe(calc.checkpoint.checkpoint_id);
    expect(after[2].parent_checkpoint?.checkpoint_id).toBe(fork.checkpoint.checkpoint_id);
    // The abandoned branch is still there, unchanged.
    expect(after.slice(4).map((s) => s.checkpoint.checkpoint_id)).toEqual(
      history.map((s) => s.checkpoint.checkpoint_id),
    );
    const old = await client.threads.getState(t.thread_id, history[0].checkpoint.checkpoint_id as string);
    expect(old.values).toEqual(history[0].values);
  }, 60_000);

  it('edits the state at an earlier checkpoint, then a run without input goes on from there', async () => {
    const t = await client.threads.create();
    await client.runs.wait(t.thread_id, 'default', { input: human('what is 2+3*4?') });
    const history = (await client.threads.getHistory(t.thread_id, { limit: 50 })) as State[];
    const calc = history.find((s) => writer(s) === 'calculator') as State;
    await client.threads.updateState(t.thread_id, {
      values: { scenario: 'SCENARIO-FROM-THE-SDK' },
      checkpointId: calc.checkpoint.checkpoint_id as string,
    });
    const logBefore = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as unknown[];
    const values = (await client.runs.wait(t.thread_id, 'default', { input: null } as never)) as {
      messages: Message[];
      scenario: string;
    };
    expect(values.scenario).toBe('SCENARIO-FROM-THE-SDK');
    expect(values.messages.at(-1)?.content).toContain('14');
    const made = ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { system: string }[]).slice(
      logBefore.length,
    );
    expect(made.map((r) => /\[switchyard:([a-z-]+)\]/.exec(r.system)?.[1])).toEqual([
      'reflection',
      'planner',
      'output',
    ]);
    expect(JSON.stringify(made.at(-1))).toContain('SCENARIO-FROM-THE-SDK');
    // A thread with no state has nothing to go on from.
    const empty = await client.threads.create();
    const err = await rejection(client.runs.wait(empty.thread_id, 'default', { input: null } as never));
    expect(err.status).toBe(400);
    expect(err.message).toContain('input is required');
  }, 60_000);

  it('stops at static breakpoints; a run without input goes on from there', async () => {
    const t = await client.threads.create();
    const contents = async () =>
      ((await client.threads.getState(t.thread_id)).values as { messages: Message[] }).messages.map(
        (m) => m.content,
      );
    const first = await client.runs.create(t.thread_id, 'default', {
      input: human('what is 6*7?'),
      interruptBefore: ['planner'],
    });
    await client.runs.join(t.thread_id, first.run_id);
    expect((await client.runs.get(t.thread_id, first.run_id)).status).toBe('success');
    let state = await client.threads.getState(t.thread_id);
    expect(state.next).toEqual(['planner']);
    expect(state.tasks.map((task) => task.name)).toEqual(['planner']);
    expect((await client.threads.get(t.thread_id)).status).toBe('interrupted');
    expect(await client.threads.search({ ids: [t.thread_id], status: 'interrupted' })).toHaveLength(1);
    expect(await contents()).toEqual(['what is 6*7?']);

    // Going on, it does not stop before the planner again; it stops after it (and before a tool).
    const second = await client.runs.create(t.thread_id, 'default', {
      input: null,
      interruptBefore: ['planner'],
      interruptAfter: ['planner'],
    });
    await client.runs.join(t.thread_id, second.run_id);
    state = await client.threads.getState(t.thread_id);
    expect(state.next).toEqual(['calculator']);
    const [afterPlanner] = await client.threads.getHistory(t.thread_id, { limit: 1 });
    expect(Object.keys(afterPlanner.metadata?.writes ?? {})).toEqual(['planner']);
    expect(await contents()).toEqual(['what is 6*7?']);

    const third = await client.runs.create(t.thread_id, 'default', {
      input: null,
      interruptBefore: ['tools'],
    });
    await client.runs.join(t.thread_id, third.run_id);
    // `tools` stands for the calculator, but the run goes on with it: it stops at the next tool, if any.
    const last = await client.runs.create(t.thread_id, 'default', { input: null });
    await client.runs.join(t.thread_id, last.run_id);
    state = await client.threads.getState(t.thread_id);
    expect(state.next).toEqual([]);
    expect((await client.threads.get(t.thread_id)).status).toBe('idle');
    const done = await contents();
    expect(done).toHaveLength(2);
    expect(done[1]).toContain('42');

    // Breakpoints name the agent's nodes; a resume keeps the waiting run's.
    for (const [options, field] of [
      [{ interruptBefore: ['planer'] }, 'interrupt_before[0]'],
      [{ interruptAfter: ['calculator', 'Switch:Route'] }, 'interrupt_after[1]'],
      [{ command: { resume: 'x' }, interruptBefore: ['planner'] }, 'interrupt_before'],
    ] as const) {
      const err = await rejection(
        client.runs.create(t.thread_id, 'default', {
          ...('command' in options ? {} : { input: human('x') }),
          ...options,
        } as never),
      );
      expect(err.status).toBe(400);
      expect(err.message).toContain(field);
    }
  }, 90_000);

  it('stops before a canvas component named by its id', async () => {
    const t = await client.threads.create();
    const run = await client.runs.create(t.thread_id, CANVAS_AGENT, {
      input: { messages: [{ type: 'human', content: 'hi' }] },
      interruptBefore: [CANVAS_STOP],
    });
    await client.runs.join(t.thread_id, run.run_id);
    const state = await client.threads.getState(t.thread_id);
    expect(state.next).toEqual([graphNodeName(CANVAS_STOP)]);
    const stopped = await stack.api('GET', `/v1/runs/${run.run_id}`);
    expect(stopped.body).toMatchObject({
      status: 'succeeded',
      output: { breakpoint: { when: 'before', nodes: [graphNodeName(CANVAS_STOP)] } },
    });
    const goOn = await client.runs.create(t.thread_id, CANVAS_AGENT, { input: null });
    await client.runs.join(t.thread_id, goOn.run_id);
    const after = await client.threads.getState(t.thread_id);
    expect(after.next).toEqual([]);
    const ran = await stack.api('GET', `/v1/runs/${goOn.run_id}`);
    expect(ran.body).toMatchObject({ status: 'succeeded', output: { answer: 'hello there' } });
    // A canvas's answers are in the thread's messages, after their prompts.
    expect((after.values as { messages: Message[] }).messages.map((m) => [m.type, m.content])).toEqual([
      ['human', 'hi'],
      ['ai', 'hello there'],
    ]);
    expect((await client.runs.get(t.thread_id, goOn.run_id)).status).toBe('success');
  }, 60_000);

  it('updates the state as a new checkpoint parented on the head or on the given one', async () => {
    const t = await client.threads.create();
    await client.runs.wait(t.thread_id, 'default', { input: human('what is 6*7?') });
    const head = await client.threads.getState(t.thread_id);
    const update = (await client.threads.updateState(t.thread_id, {
      values: { scenario: 'EDITED-BY-SDK', messages: [{ type: 'human', content: 'a note' }] },
    })) as { checkpoint?: { checkpoint_id: string }; configurable?: { checkpoint_id: string } };
    const id = update.checkpoint?.checkpoint_id ?? update.configurable?.checkpoint_id;
    const state = await client.threads.getState(t.thread_id);
    expect(state.checkpoint.checkpoint_id).toBe(id);
    expect(state.parent_checkpoint?.checkpoint_id).toBe(head.checkpoint.checkpoint_id as string);
    const values = state.values as { scenario: string; messages: Message[] };
    expect(values.scenario).toBe('EDITED-BY-SDK');
    expect(values.messages.map((m) => m.content).at(-1)).toBe('a note');
    // The earlier checkpoint is unchanged.
    expect(
      (await client.threads.getState(t.thread_id, head.checkpoint.checkpoint_id as string)).values,
    ).toEqual(head.values);

    // Rewrite the answer (a message id of the thread replaces that message) from the head's checkpoint.
    const answer = (head.values as { messages: Message[] }).messages[1];
    await client.threads.updateState(t.thread_id, {
      values: { messages: [{ ...answer, content: 'forty-two' }] },
      checkpointId: head.checkpoint.checkpoint_id as string,
    });
    const rewritten = (await client.threads.getState(t.thread_id)).values as {
      messages: Message[];
      scenario: string;
    };
    expect(rewritten.messages.map((m) => m.content)).toEqual(['what is 6*7?', 'forty-two']);
    expect(rewritten.scenario).not.toBe('EDITED-BY-SDK');

    for (const [values, field] of [
      [{ turn: 3 }, 'values.turn'],
      [{ nope: 1 }, 'values.nope'],
      [{ scenario: 5 }, 'values'],
    ] as const) {
      const err = await rejection(client.threads.updateState(t.thread_id, { values }));
      expect(err.status).toBe(400);
      expect(err.message).toContain(field);
    }
    for (const [asNode, why] of [
      ['planner', 'chooses its successors at run time'],
      ['planer', 'is not a node of the agent'],
    ]) {
      const err = await rejection(client.threads.updateState(t.thread_id, { values: {}, asNode }));
      expect(err.status).toBe(400);
      expect(err.message).toContain('as_node');
      expect(err.message).toContain(why);
    }

    // as_node: the update stands for the answer to a question, so the planner runs next.
    const before = (await client.threads.getState(t.thread_id)).values as { messages: Message[] };
    await client.threads.updateState(t.thread_id, {
      values: { messages: [{ type: 'human', content: 'what is 6*8?' }] },
      asNode: 'ask_user',
    });
    const pending = await client.threads.getState(t.thread_id);
    expect(pending.next).toEqual(['planner']);
    const [newest] = await client.threads.getHistory(t.thread_id, { limit: 1 });
    expect(newest.next).toEqual(['planner']);
    expect(newest.checkpoint.checkpoint_id).toBe(pending.checkpoint.checkpoint_id);
    // A run without input goes on from there: the planner, then the answer.
    const run = await client.runs.create(t.thread_id, 'agent', { input: null });
    expect(await client.runs.join(t.thread_id, run.run_id)).toBeDefined();
    expect((await client.runs.get(t.thread_id, run.run_id)).status).toBe('success');
    const after = await client.threads.getState(t.thread_id);
    expect(after.next).toEqual([]);
    const messages = (after.values as { messages: Message[] }).messages;
    expect(messages.slice(0, before.messages.length + 1).map((m) => m.content)).toEqual([
      ...before.messages.map((m) => m.content),
      'what is 6*8?',
    ]);
    expect(messages).toHaveLength(before.messages.length + 2);
    expect(messages.at(-1)?.type).toBe('ai');
    const steps = await client.threads.getHistory(t.thread_id, { limit: 10 });
    const ranAfter = steps.filter((s) => s.metadata?.run_id === run.run_id);
    expect(ranAfter.map((s) => Object.keys(s.metadata?.writes ?? {})[0]).reverse()).toContain('planner');
  }, 60_000);
});

type UseStream = typeof useStream2;
const HOOKS: [string, UseStream][] = [
  ['2.0.0', useStream2],
  ['1.15.0', useStream1 as unknown as UseStream],
];

describe.each(HOOKS)(
  'useStream of @langchain/langgraph-sdk %s (react-test-renderer)',
  (_version, useStream) => {
    it('creates a thread, submits, streams and renders the human and the AI message', async () => {
      let latest: ReturnType<UseStream> | undefined;
      let threadId: string | undefined;
      function Chat() {
        const stream = useStream({
          apiUrl: stack.gatewayUrl,
          apiKey: stack.key,
          assistantId: 'agent',
          onThreadId: (id: string) => {
            threadId = id;
          },
        });
        latest = stream;
        return createElement(
          'ul',
          null,
          stream.messages.map((m) =>
            createElement(
              'li',
              { key: m.id },
              `${m.type}: ${typeof m.content === 'string' ? m.content : ''}`,
            ),
          ),
        );
      }
      let renderer: ReactTestRenderer | undefined;
      await act(async () => {
        renderer = create(createElement(Chat));
      });
      await act(async () => {
        void latest?.submit({ messages: [{ type: 'human', content: 'hello from useStream' }] });
      });
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (latest?.isLoading || (latest?.messages.length ?? 0) < 2)) {
        await act(async () => {
          await new Promise((r) => setTimeout(r, 100));
        });
      }
      const items = renderer?.root.findAllByType('li').map((li) => li.children.join('')) ?? [];
      expect(items).toEqual(['human: hello from useStream', expect.stringMatching(/^ai: The answer is/)]);
      expect(latest?.error).toBeUndefined();
      const state = await stack.api('GET', `/threads/${threadId}/state`);
      expect((state.body.values.messages as Message[]).map((m) => m.content)).toEqual([
        'hello from useStream',
        items[1].slice('ai: '.length),
      ]);
      await act(async () => {
        renderer?.unmount();
      });
    }, 60_000);
  },
);

describe.each(SDKS)('threads and runs lifecycle with @langchain/langgraph-sdk %s', (_version, SdkClient) => {
  let client: Client;
  let other: Client;
  type Thread = Awaited<ReturnType<Client['threads']['get']>>;

  beforeAll(async () => {
    client = new SdkClient({ apiUrl: stack.gatewayUrl, apiKey: stack.key, callerOptions: { maxRetries: 0 } });
    const tenant = await stack.newTenant(`lifecycle-${_version}`, ADMIN);
    other = new SdkClient({ apiUrl: stack.gatewayUrl, apiKey: tenant.key, callerOptions: { maxRetries: 0 } });
  });

  it('searches and counts threads by metadata, ids, status and values; sorts and pages', async () => {
    const tag = randomUUID();
    const a = await client.threads.create({ metadata: { tag, user: 'ann' } });
    const b = await client.threads.create({ metadata: { tag, user: 'bob' } });
    const c = await client.threads.create({ metadata: { tag, user: 'bob', pinned: true } });
    await client.runs.wait(b.thread_id, 'agent', { input: human('hello bob') });
    await other.threads.create({ metadata: { tag, user: 'bob' } });

    const byTag = (await client.threads.search({ metadata: { tag } })) as Thread[];
    // Newest first by default; another tenant's thread is never found.
    expect(byTag.map((t) => t.thread_id)).toEqual([c.thread_id, b.thread_id, a.thread_id]);
    const bobs = (await client.threads.search({
      metadata: { tag, user: 'bob' },
      sortOrder: 'asc',
    })) as Thread[];
    expect(bobs.map((t) => t.thread_id)).toEqual([b.thread_id, c.thread_id]);
    const page = (await client.threads.search({ metadata: { tag }, limit: 1, offset: 1 })) as Thread[];
    expect(page.map((t) => t.thread_id)).toEqual([b.thread_id]);
    const ids = (await client.threads.search({ ids: [a.thread_id, c.thread_id] })) as Thread[];
    expect(ids.map((t) => t.thread_id).sort()).toEqual([a.thread_id, c.thread_id].sort());
    const idle = (await client.threads.search({ metadata: { tag }, status: 'idle' })) as Thread[];
    expect(idle).toHaveLength(3);
    expect(await client.threads.search({ metadata: { tag }, status: 'busy' })).toEqual([]);
    // Values: the state's messages contain one whose content is the human's.
    const withHello = (await client.threads.search({
      metadata: { tag },
      values: { messages: [{ content: 'hello bob' }] },
    } as never)) as Thread[];
    expect(withHello.map((t) => t.thread_id)).toEqual([b.thread_id]);
    expect(withHello[0].values).toMatchObject({ messages: expect.any(Array) });
    const selected = (await client.threads.search({
      metadata: { tag },
      select: ['thread_id', 'metadata'],
    } as never)) as unknown as Record<string, unknown>[];
    expect(Object.keys(selected[0]).sort()).toEqual(['metadata', 'thread_id']);

    if ('count' in client.threads) {
      expect(await client.threads.count({ metadata: { tag } })).toBe(3);
      expect(await client.threads.count({ metadata: { tag, user: 'bob' } })).toBe(2);
      expect(
        await client.threads.count({
          metadata: { tag },
          values: { messages: [{ content: 'hello bob' }] },
        } as never),
      ).toBe(1);
    }
    const bad = await stack.api('POST', '/threads/search', { status: 'sleeping' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('status');
  }, 60_000);

  it('copies a thread with its whole history; the copy goes on on its own', async () => {
    const t = await client.threads.create({ metadata: { source: 'original' } });
    await client.runs.wait(t.thread_id, 'default', { input: human('what is 2+3*4?') });
    const copy = await client.threads.copy(t.thread_id);
    expect(copy.thread_id).not.toBe(t.thread_id);
    expect(copy.metadata).toEqual({ source: 'original' });
    const [a, b] = await Promise.all([
      client.threads.getState(t.thread_id),
      client.threads.getState(copy.thread_id),
    ]);
    // The same values; message ids are the thread's own (`<thread_id>:<index>`).
    const ownIds = (values: unknown, threadId: string) =>
      JSON.parse(JSON.stringify(values).replaceAll(threadId, '<thread>')) as unknown;
    expect(ownIds(b.values, copy.thread_id)).toEqual(ownIds(a.values, t.thread_id));
    const [ha, hb] = await Promise.all([
      client.threads.getHistory(t.thread_id, { limit: 50 }),
      client.threads.getHistory(copy.thread_id, { limit: 50 }),
    ]);
    expect(hb.map((s) => [s.checkpoint.checkpoint_id, s.next, ownIds(s.values, copy.thread_id)])).toEqual(
      ha.map((s) => [s.checkpoint.checkpoint_id, s.next, ownIds(s.values, t.thread_id)]),
    );
    // The copy's runs are records of their own; the original's actions are not read twice.
    const runsA = await client.runs.list(t.thread_id);
    const runsB = await client.runs.list(copy.thread_id);
    expect(runsB).toHaveLength(runsA.length);
    expect(runsB[0].run_id).not.toBe(runsA[0].run_id);
    const actions = await stack.api('GET', `/v1/runs/${runsA[0].run_id}/actions`);
    expect(actions.body.actions).toHaveLength(ha.length);

    // A second turn on the copy leaves the original as it was.
    const next = (await client.runs.wait(copy.thread_id, 'default', { input: human('what is 6*7?') })) as {
      messages: Message[];
    };
    expect(next.messages.at(-1)?.content).toContain('42');
    expect((await client.threads.getState(t.thread_id)).values).toEqual(a.values);
    expect(await client.threads.getHistory(t.thread_id, { limit: 50 })).toHaveLength(ha.length);

    expect((await rejection(other.threads.copy(t.thread_id))).status).toBe(404);
    const busy = await client.runs.create(t.thread_id, 'agent', { input: human('[slow] wait') });
    expect((await rejection(client.threads.copy(t.thread_id))).status).toBe(409);
    await client.runs.join(t.thread_id, busy.run_id);
  }, 90_000);

  it('runs stateless: wait, stream, create + join, batch; the thread goes when done unless kept', async () => {
    const gone = (threadId: string) =>
      waitFor(`stateless thread ${threadId} to be deleted`, async () => {
        const res = await stack.api('GET', `/threads/${threadId}`);
        return res.status === 404;
      });

    const values = (await client.runs.wait(null, 'agent', { input: human('hello') })) as {
      messages: Message[];
    };
    expect(values.messages.at(-1)?.content).toEqual(expect.any(String));
    expect(values.messages).toHaveLength(2);

    let runId = '';
    const parts = await collect(
      client.runs.stream(null, 'agent', {
        input: human('[long-answer] tell me'),
        streamMode: ['values'],
        onRunCreated: ({ run_id }: { run_id: string }) => (runId = run_id),
      } as never) as AsyncIterable<Part>,
    );
    expect(parts[0].event).toBe('metadata');
    expect(parts.at(-1)?.event).toBe('values');
    expect(runId).not.toBe('');
    // (Read from the stream: the run's row may be gone with its thread by now.)
    const streamed = (parts[0].data as { run_id: string; thread_id: string }).thread_id;
    expect((parts[0].data as { run_id: string }).run_id).toBe(runId);
    expect(streamed).toEqual(expect.any(String));
    await gone(streamed);

    const created = await client.runs.create(null, 'agent', {
      input: human('again'),
      onCompletion: 'keep',
    } as never);
    const joined = await collect(
      client.runs.joinStream(null, created.run_id, { lastEventId: '-1' }) as AsyncIterable<Part>,
    );
    expect(joined.at(-1)?.event).toBe('values');
    // Kept: its thread is still there once the run ended.
    await waitFor('the kept run to end', async () =>
      ['success', 'error'].includes((await client.runs.get(created.thread_id, created.run_id)).status),
    );
    expect((await client.threads.get(created.thread_id)).thread_id).toBe(created.thread_id);

    const batch = await client.runs.createBatch([
      { assistantId: 'agent', input: human('one') },
      { assistantId: 'agent', input: human('two') },
    ] as never);
    expect(batch).toHaveLength(2);
    expect(new Set(batch.map((r: { thread_id: string }) => r.thread_id)).size).toBe(2);
    await Promise.all(batch.map((r: { thread_id: string }) => gone(r.thread_id)));

    const forked = await rejection(
      client.runs.wait(null, 'agent', { input: null, command: { resume: 'x' } } as never),
    );
    expect(forked.status).toBe(400);
    const stops = await rejection(
      client.runs.create(null, 'agent', { input: human('x'), interruptBefore: '*' }),
    );
    expect(stops.status).toBe(400);
    expect(stops.message).toContain('on_completion');
    // (2.0.0's runs.create sends no on_completion.)
    const kept = (
      await stack.api('POST', '/runs', {
        assistant_id: 'agent',
        input: human('what is 6*7?'),
        interrupt_after: ['planner'],
        on_completion: 'keep',
      })
    ).body as { run_id: string; thread_id: string };
    await client.runs.join(kept.thread_id, kept.run_id);
    expect((await client.threads.getState(kept.thread_id)).next).toEqual(['calculator']);
    expect((await rejection(client.runs.create(null, 'nobody', { input: human('x') }))).status).toBe(404);
    expect((await rejection(other.runs.get(created.thread_id, created.run_id))).status).toBe(404);
  }, 90_000);

  it('updates metadata by merging; a TTL is refused naming it', async () => {
    const t = await client.threads.create({ metadata: { keep: 1, change: 'a' } });
    const updated = await client.threads.update(t.thread_id, { metadata: { change: 'b', added: true } });
    expect(updated.metadata).toEqual({ keep: 1, change: 'b', added: true });
    expect((await client.threads.get(t.thread_id)).metadata).toEqual({ keep: 1, change: 'b', added: true });
    const ttl = await rejection(client.threads.update(t.thread_id, { metadata: {}, ttl: 5 } as never));
    expect(ttl.status).toBe(400);
    expect(ttl.message).toContain('ttl');
    expect((await rejection(other.threads.update(t.thread_id, { metadata: { x: 1 } }))).status).toBe(404);

    // The two thread routes not served are refused by name, not a bare 404.
    if ('patchState' in client.threads) {
      const patched = await rejection(client.threads.patchState(t.thread_id, { note: 1 }));
      expect(patched.status).toBe(400);
      expect(patched.message).toContain('PATCH /threads/{thread_id}/state');
    }
    if ('joinStream' in client.threads) {
      const joined = await rejection(collect(client.threads.joinStream(t.thread_id) as AsyncIterable<Part>));
      expect(joined.status).toBe(400);
      expect(joined.message).toContain('GET /threads/{thread_id}/stream');
    }
  });

  it('joins a run (waits for its values), deletes an ended run and then the thread', async () => {
    const t = await client.threads.create();
    const run = await client.runs.create(t.thread_id, 'agent', { input: human('[long-answer] tell me') });
    const values = (await client.runs.join(t.thread_id, run.run_id)) as { messages: Message[] };
    expect(values.messages.at(-1)?.content).toContain('word39');
    expect((await client.runs.get(t.thread_id, run.run_id)).status).toBe('success');

    // A run under way cannot be deleted, nor its thread.
    const slow = await client.runs.create(t.thread_id, 'agent', {
      input: human('[slow] wait'),
      multitaskStrategy: 'enqueue',
    });
    expect((await rejection(client.runs.delete(t.thread_id, slow.run_id))).status).toBe(409);
    expect((await rejection(client.threads.delete(t.thread_id))).status).toBe(409);
    await client.runs.join(t.thread_id, slow.run_id);

    const history = (await client.threads.getHistory(t.thread_id, { limit: 100 })).length;
    expect((await rejection(other.runs.delete(t.thread_id, run.run_id))).status).toBe(404);
    await client.runs.delete(t.thread_id, run.run_id);
    expect((await rejection(client.runs.get(t.thread_id, run.run_id))).status).toBe(404);
    // The checkpoints it wrote stay the thread's history.
    expect(await client.threads.getHistory(t.thread_id, { limit: 100 })).toHaveLength(history);

    expect((await rejection(other.threads.delete(t.thread_id))).status).toBe(404);
    expect(await stack.redis('EXISTS', eventsKey(slow.run_id))).toBe(1);
    await client.threads.delete(t.thread_id);
    expect((await rejection(client.threads.get(t.thread_id))).status).toBe(404);
    const left = await stack.sql<{ n: string }>(
      `SELECT (SELECT count(*) FROM runs WHERE thread_id = $1) + (SELECT count(*) FROM state_deltas WHERE thread_id = $1) AS n`,
      [t.thread_id],
    );
    expect(Number(left[0].n)).toBe(0);
    expect(await stack.redis('EXISTS', eventsKey(slow.run_id))).toBe(0);
  }, 90_000);
});

describe('the store with @langchain/langgraph-sdk 2.0.0', () => {
  let client: Client;
  let other: Client;

  beforeAll(async () => {
    client = new Client2({ apiUrl: stack.gatewayUrl, apiKey: stack.key, callerOptions: { maxRetries: 0 } });
    const tenant = await stack.newTenant('store-other', ADMIN);
    other = new Client2({ apiUrl: stack.gatewayUrl, apiKey: tenant.key, callerOptions: { maxRetries: 0 } });
  });

  it('puts, gets, searches by prefix, filter and meaning, lists namespaces and deletes', async () => {
    const user = ['memories', randomUUID()];
    await client.store.putItem([...user, 'food'], 'likes', {
      text: 'loves spicy ramen and dumplings',
      rank: 3,
    });
    await client.store.putItem([...user, 'food'], 'dislikes', { text: 'cannot stand olives', rank: 1 });
    await client.store.putItem([...user, 'travel'], 'trip', { text: 'flew to Lisbon in spring', rank: 2 });
    await client.store.putItem(
      [...user, 'travel'],
      'secret',
      { text: 'ramen ramen ramen' },
      { index: false },
    );

    const got = await client.store.getItem([...user, 'food'], 'likes');
    expect(got).toMatchObject({ namespace: [...user, 'food'], key: 'likes', value: { rank: 3 } });
    expect(got?.createdAt).toEqual(expect.any(String));
    expect(await client.store.getItem([...user, 'food'], 'missing')).toBeNull();
    // Another tenant sees nothing of it.
    expect(await other.store.getItem([...user, 'food'], 'likes')).toBeNull();
    expect((await other.store.searchItems(user)).items).toEqual([]);

    const all = await client.store.searchItems(user, { limit: 10 });
    expect(all.items.map((i) => i.key).sort()).toEqual(['dislikes', 'likes', 'secret', 'trip']);
    const food = await client.store.searchItems([...user, 'food']);
    expect(food.items.map((i) => i.key).sort()).toEqual(['dislikes', 'likes']);
    const ranked = await client.store.searchItems(user, { filter: { rank: { $gte: 2 } } });
    expect(ranked.items.map((i) => i.key).sort()).toEqual(['likes', 'trip']);
    const exact = await client.store.searchItems(user, { filter: { rank: 1 } });
    expect(exact.items.map((i) => i.key)).toEqual(['dislikes']);

    // By meaning: the closest first, with a score; an item put with index: false is not searched.
    const ramen = await client.store.searchItems(user, { query: 'spicy ramen', limit: 3 });
    expect(ramen.items[0].key).toBe('likes');
    expect(ramen.items[0].score).toBeGreaterThan(ramen.items[1].score ?? 1);
    expect(ramen.items.map((i) => i.key)).not.toContain('secret');

    const spaces = await client.store.listNamespaces({ prefix: user });
    expect(spaces.namespaces).toEqual([
      [...user, 'food'],
      [...user, 'travel'],
    ]);
    expect((await client.store.listNamespaces({ prefix: user, maxDepth: 2 })).namespaces).toEqual([user]);
    expect((await client.store.listNamespaces({ prefix: user, suffix: ['travel'] })).namespaces).toEqual([
      [...user, 'travel'],
    ]);

    // A put replaces the value; a delete removes the item.
    await client.store.putItem([...user, 'food'], 'likes', { text: 'now prefers udon', rank: 4 });
    expect((await client.store.getItem([...user, 'food'], 'likes'))?.value).toEqual({
      text: 'now prefers udon',
      rank: 4,
    });
    await client.store.deleteItem([...user, 'food'], 'likes');
    expect(await client.store.getItem([...user, 'food'], 'likes')).toBeNull();

    const bad = await stack.api('PUT', '/store/items', { namespace: ['a.b'], key: 'k', value: {} });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('namespace');
    const op = await stack.api('POST', '/store/items/search', {
      namespace_prefix: user,
      filter: { rank: { $in: [1] } },
    });
    expect(op.status).toBe(400);
    expect(JSON.stringify(op.body)).toContain('$in');
  });

  it('forgets an item when its TTL (minutes) has passed', async () => {
    const ns = ['ttl', randomUUID()];
    await client.store.putItem(ns, 'short', { v: 1 }, { ttl: 0.02 });
    await client.store.putItem(ns, 'kept', { v: 2 });
    expect(await client.store.getItem(ns, 'short', { refreshTtl: false })).not.toBeNull();
    await waitFor(
      'the short-lived item to expire',
      async () => (await client.store.getItem(ns, 'short', { refreshTtl: false })) === null,
    );
    expect((await client.store.searchItems(ns)).items.map((i) => i.key)).toEqual(['kept']);
  });
});

describe('cancelMany with langgraph-sdk 1.15.0', () => {
  it('cancels the runs named, or every run of the tenant in a status', async () => {
    const client = new Client1({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const threads = await Promise.all([
      client.threads.create(),
      client.threads.create(),
      client.threads.create(),
    ]);
    const runs = await Promise.all(
      threads.map((t) => client.runs.create(t.thread_id, 'agent', { input: human('[slow] wait') })),
    );
    await client.runs.cancelMany({ threadId: threads[0].thread_id, runIds: [runs[0].run_id] });
    await waitFor('the named run to be cancelled', async () =>
      ['interrupted'].includes((await client.runs.get(threads[0].thread_id, runs[0].run_id)).status),
    );
    expect(['pending', 'running']).toContain(
      (await client.runs.get(threads[1].thread_id, runs[1].run_id)).status,
    );

    await client.runs.cancelMany({ status: 'all' });
    for (const [i, t] of threads.entries()) {
      await waitFor(`run ${i} to be cancelled`, async () =>
        ['interrupted'].includes((await client.runs.get(t.thread_id, runs[i].run_id)).status),
      );
    }
    // Ended runs are left alone; both ways at once is a 400.
    await client.runs.cancelMany({ runIds: [runs[0].run_id] });
    const both = await stack.api('POST', '/runs/cancel', { run_ids: [runs[0].run_id], status: 'all' });
    expect(both.status).toBe(400);
  }, 60_000);
});

describe('webhooks with @langchain/langgraph-sdk 2.0.0', () => {
  it('POSTs once when the run ends, signed with the tenant secret, retried after a failure', async () => {
    const client = new Client2({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const received: { body: string; signature: string; status: number }[] = [];
    let failNext = true;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        // The first POST fails: the gateway must try again.
        const status = failNext ? 500 : 200;
        failNext = false;
        received.push({ body, signature: String(req.headers['x-switchyard-signature'] ?? ''), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const t = await client.threads.create();
      const run = await client.runs.create(t.thread_id, 'agent', { input: human('hello'), webhook: url });
      const ok = await waitFor('the webhook to be delivered', async () =>
        received.find((r) => r.status === 200),
      );
      expect(received.map((r) => r.status)).toEqual([500, 200]);
      const payload = JSON.parse(ok.body) as {
        run_id: string;
        status: string;
        values: { messages: unknown[] };
      };
      expect(payload).toMatchObject({ run_id: run.run_id, thread_id: t.thread_id, status: 'success' });
      expect(payload.values.messages).toHaveLength(2);
      // The signature: HMAC-SHA256 of "<t>.<body>" with the tenant's secret.
      const { secret } = (await stack.api('GET', '/v1/webhooks/secret')).body as { secret: string };
      const [, at, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(ok.signature) ?? [];
      expect(v1).toBe(createHmac('sha256', secret).update(`${at}.${ok.body}`).digest('hex'));
      // Delivered: nothing more comes.
      await new Promise((r) => setTimeout(r, 2500));
      expect(received).toHaveLength(2);

      // A failed run's webhook says so; a private address literal is refused at once.
      const failing = await client.runs.create(t.thread_id, 'agent', {
        input: human('[teleport] go'),
        webhook: url,
      });
      const bad = await waitFor("the failed run's webhook", async () =>
        received
          .map((r) => JSON.parse(r.body) as { run_id: string; status: string })
          .find((p) => p.run_id === failing.run_id),
      );
      expect(bad.status).toBe('error');
      // A stateless run's thread waits for its webhook before it goes.
      const stateless = await client.runs.create(null, 'agent', { input: human('hello'), webhook: url });
      const sent = await waitFor("the stateless run's webhook", async () =>
        received
          .map((r) => JSON.parse(r.body) as { run_id: string; values: { messages: unknown[] } })
          .find((p) => p.run_id === stateless.run_id),
      );
      expect(sent.values.messages).toHaveLength(2);
      const refused = await rejection(
        client.runs.create(t.thread_id, 'agent', { input: human('x'), webhook: 'http://10.1.2.3/hook' }),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain('webhook');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);
});

describe('delayed runs with @langchain/langgraph-sdk 2.0.0', () => {
  it('keeps a run pending until after_seconds, then runs it; a cancel before then ends it unstarted', async () => {
    const client = new Client2({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const t = await client.threads.create();
    const run = await client.runs.create(t.thread_id, 'agent', {
      input: human('hello later'),
      afterSeconds: 2,
    });
    expect((await client.runs.get(t.thread_id, run.run_id)).status).toBe('pending');
    const values = (await client.runs.join(t.thread_id, run.run_id)) as { messages: Message[] };
    expect(values.messages).toHaveLength(2);
    const [row] = await stack.sql<{ waited: number }>(
      `SELECT extract(epoch FROM started_at - created_at)::float8 AS waited FROM runs WHERE id = $1`,
      [run.run_id],
    );
    expect(row.waited).toBeGreaterThanOrEqual(2);

    const later = await client.runs.create(t.thread_id, 'agent', {
      input: human('never'),
      afterSeconds: 600,
    });
    await client.runs.cancel(t.thread_id, later.run_id, true);
    expect((await client.runs.get(t.thread_id, later.run_id)).status).toBe('interrupted');
    const [never] = await stack.sql<{ started_at: Date | null }>(
      'SELECT started_at FROM runs WHERE id = $1',
      [later.run_id],
    );
    expect(never.started_at).toBeNull();

    // The native API takes it too; a delayed resume or fork is refused.
    const native = await stack.api('POST', '/v1/runs', { input: { prompt: 'hi' }, after_seconds: 1 });
    expect(native.status).toBe(202);
    expect((await stack.ended(native.body.run_id)).status).toBe('succeeded');
    const fork = await rejection(
      client.runs.create(t.thread_id, 'agent', { input: null, afterSeconds: 5 } as never),
    );
    expect(fork.status).toBe(400);
    expect(fork.message).toContain('after_seconds');
  }, 60_000);
});

describe('crons with @langchain/langgraph-sdk 2.0.0', () => {
  it('fires each time once under two gateways, on a thread or stateless; search, update, delete', async () => {
    const client = new Client2({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const firings = async (cronId: string) =>
      (
        await stack.sql<{ request_id: string; status: string }>(
          `SELECT request_id, status FROM runs WHERE request_id LIKE $1 ORDER BY request_id`,
          [`cron:${cronId}:%`],
        )
      ).map((r) => ({ at: Date.parse(r.request_id.slice(`cron:${cronId}:`.length)), status: r.status }));
    await stack.startService('gateway', 2);
    try {
      // Every two seconds (six fields: seconds first), stateless, each run's thread kept.
      const cron = await client.crons.create('agent', {
        schedule: '*/2 * * * * *',
        input: human('tick'),
        onRunCompleted: 'keep',
        metadata: { job: 'tick' },
      } as never);
      expect(cron).toMatchObject({ schedule: '*/2 * * * * *', thread_id: null, enabled: true });
      await waitFor('three firings', async () => (await firings(cron.cron_id)).length >= 3, 30_000);
      const seen = await firings(cron.cron_id);
      // One run per time (never a time twice, though two gateways fire), on the schedule's seconds.
      for (let i = 1; i < seen.length; i++) {
        const gap = seen[i].at - seen[i - 1].at;
        expect(gap).toBeGreaterThan(0);
        expect(gap % 2000).toBe(0);
      }
      const found = await client.crons.search({ assistantId: 'agent' } as never);
      expect(found.map((c: { cron_id: string }) => c.cron_id)).toContain(cron.cron_id);
      expect(await client.crons.count({ assistantId: 'agent' } as never)).toBeGreaterThanOrEqual(1);

      // Disabled: no more firings; deleted: gone.
      await client.crons.update(cron.cron_id, { enabled: false } as never);
      await new Promise((r) => setTimeout(r, 500));
      const stopped = (await firings(cron.cron_id)).length;
      await new Promise((r) => setTimeout(r, 3000));
      expect((await firings(cron.cron_id)).length).toBe(stopped);
      await client.crons.delete(cron.cron_id);
      expect(await client.crons.search({ assistantId: 'agent' } as never)).not.toContainEqual(
        expect.objectContaining({ cron_id: cron.cron_id }),
      );

      // On a thread: its runs queue on that thread.
      const t = await client.threads.create();
      const onThread = await client.crons.createForThread(t.thread_id, 'agent', {
        schedule: '*/2 * * * * *',
        input: human('tock'),
      } as never);
      await waitFor(
        'a run on the thread',
        async () => (await client.runs.list(t.thread_id)).length >= 1,
        30_000,
      );
      await client.crons.delete(onThread.cron_id);
      await waitFor(
        'the thread to be idle',
        async () => (await client.threads.get(t.thread_id)).status === 'idle',
      );
      expect((await firings(onThread.cron_id)).every((f) => f.status === 'succeeded')).toBe(true);

      const bad = await stack.api('POST', '/runs/crons', {
        assistant_id: 'agent',
        schedule: 'every day',
        input: human('x'),
      });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('schedule');
      const zone = await stack.api('POST', '/runs/crons', {
        assistant_id: 'agent',
        schedule: '0 9 * * *',
        timezone: 'Mars/Olympus',
        input: human('x'),
      });
      expect(zone.status).toBe(400);
      const noInput = await stack.api('POST', '/runs/crons', {
        assistant_id: 'agent',
        schedule: '0 9 * * *',
      });
      expect(noInput.status).toBe(400);
      expect(JSON.stringify(noInput.body)).toContain('input');
      const stop = await stack.api('POST', '/runs/crons', {
        assistant_id: 'agent',
        schedule: '0 9 * * *',
        input: human('x'),
        interrupt_after: ['planner', 'planer'],
        on_run_completed: 'keep',
      });
      expect(stop.status).toBe(400);
      expect(JSON.stringify(stop.body)).toContain('interrupt_after[1]');
      const statelessStop = await stack.api('POST', '/runs/crons', {
        assistant_id: 'agent',
        schedule: '0 9 * * *',
        input: human('x'),
        interrupt_before: ['planner'],
      });
      expect(statelessStop.status).toBe(400);
      expect(JSON.stringify(statelessStop.body)).toContain('on_run_completed');
      const later = await stack.api('POST', '/runs/crons', {
        assistant_id: 'agent',
        schedule: '0 9 * * *',
        timezone: 'Europe/Lisbon',
        input: human('x'),
      });
      expect(later.status).toBe(200);
      // 09:00 in Lisbon, the next one to come.
      const next = new Date(later.body.next_run_date as string);
      expect(next.getTime()).toBeGreaterThan(Date.now());
      expect(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Lisbon',
          hour: '2-digit',
          minute: '2-digit',
        }).format(next),
      ).toBe('09:00');
      // Missed times (the service was down for three of them) fire once, then the schedule goes on.
      const hourly = await client.crons.create('agent', {
        schedule: '0 * * * *',
        input: human('catch up'),
        onRunCompleted: 'keep',
      } as never);
      await stack.sql(`UPDATE crons SET next_run_at = now() - interval '3 hours 5 minutes' WHERE id = $1`, [
        hourly.cron_id,
      ]);
      await waitFor('the missed firing', async () => (await firings(hourly.cron_id)).length === 1, 30_000);
      const [caughtUp] = (await client.crons.search({ assistantId: 'agent' } as never)).filter(
        (c: { cron_id: string }) => c.cron_id === hourly.cron_id,
      ) as { next_run_date: string }[];
      expect(Date.parse(caughtUp.next_run_date)).toBeGreaterThan(Date.now());
      await new Promise((r) => setTimeout(r, 2500));
      expect(await firings(hourly.cron_id)).toHaveLength(1);
      await client.crons.delete(later.body.cron_id as string);
      await client.crons.delete(hourly.cron_id);
    } finally {
      await stack.stopService('gateway', 2);
    }
  }, 120_000);
});

describe('threads.prune with langgraph-sdk 1.15.0', () => {
  it('deletes the threads named', async () => {
    const client = new Client1({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const a = await client.threads.create();
    const b = await client.threads.create();
    await client.runs.wait(a.thread_id, 'agent', { input: human('hello') });
    const kept = await client.threads.create();
    const out = await client.threads.prune([a.thread_id, b.thread_id, randomUUID()]);
    expect(out).toEqual({ pruned_count: 2 });
    expect((await rejection(client.threads.get(a.thread_id))).status).toBe(404);
    expect((await rejection(client.threads.get(b.thread_id))).status).toBe(404);
    expect((await client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);
  });

  it('keep_latest keeps each thread at its latest state only; the thread runs on from there', async () => {
    const client = new Client1({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const t = await client.threads.create();
    const empty = await client.threads.create();
    await client.runs.wait(t.thread_id, 'agent', { input: human('hello') });
    await client.runs.wait(t.thread_id, 'agent', { input: human('hello again') });
    const before = await client.threads.getState(t.thread_id);
    const history = await client.threads.getHistory(t.thread_id, { limit: 100 });
    expect(history.length).toBeGreaterThan(2);

    const out = await client.threads.prune([t.thread_id, empty.thread_id], { strategy: 'keep_latest' });
    expect(out).toEqual({ pruned_count: 1 }); // the empty thread had no history to fold
    const after = await client.threads.getState(t.thread_id);
    expect(after.values).toEqual(before.values);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    const kept = await client.threads.getHistory(t.thread_id, { limit: 100 });
    expect(kept.map((s) => s.checkpoint.checkpoint_id)).toEqual([before.checkpoint.checkpoint_id]);
    const gone = history.find((s) => s.checkpoint.checkpoint_id !== before.checkpoint.checkpoint_id);
    expect(
      (await rejection(client.threads.getState(t.thread_id, gone!.checkpoint.checkpoint_id!))).status,
    ).toBe(404);

    const next = (await client.runs.wait(t.thread_id, 'agent', { input: human('and once more') })) as {
      messages: { content: string }[];
    };
    expect(next.messages.length).toBeGreaterThan((before.values as { messages: unknown[] }).messages.length);
    expect((await client.threads.getHistory(t.thread_id, { limit: 100 })).length).toBeGreaterThan(1);
  });
});

describe('assistants with @langchain/langgraph-sdk 2.0.0: made, versioned, drawn, deleted', () => {
  // What the scripted model server was sent as each request's system text.
  const systemPrompts = async (): Promise<string[]> =>
    ((await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { system: string }[]).map((r) => r.system);

  it('counts assistants as search finds them', async () => {
    const client = new Client2({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const found = (await client.assistants.search({ limit: 100 })).length;
    expect(await client.assistants.count()).toBe(found);
    expect(await client.assistants.count({ graphId: 'default' })).toBe(1);
    expect(await client.assistants.count({ graphId: 'nobody' })).toBe(0);
    expect(await client.assistants.count({ metadata: { nobody: true } })).toBe(0);
  });

  it('makes an assistant from an agent; versions, latest, update, delete', async () => {
    const client = new Client2({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    const tag = randomUUID();
    const made = await client.assistants.create({
      graphId: 'agent',
      name: 'terse',
      config: { configurable: { system_prompt: `Answer tersely ${tag}.` } },
      context: { max_steps: 30 },
      metadata: { tag, team: 'a' },
      description: 'short answers',
    });
    expect(made).toMatchObject({
      graph_id: 'agent',
      name: 'terse',
      version: 1,
      config: { configurable: { system_prompt: `Answer tersely ${tag}.` } },
      context: { max_steps: 30 },
      metadata: { tag, team: 'a' },
      description: 'short answers',
    });
    expect(await client.assistants.get(made.assistant_id)).toEqual(made);
    expect((await client.assistants.search({ metadata: { tag } })).map((a) => a.assistant_id)).toEqual([
      made.assistant_id,
    ]);
    expect(await client.assistants.count({ graphId: 'agent', metadata: { tag } })).toBe(1);
    expect(await client.assistants.count({ name: 'terse', metadata: { tag } })).toBe(1);

    // Its runs run with its settings: the model is sent its system prompt; its step limit holds.
    const t = await client.threads.create();
    const first = await client.runs.create(t.thread_id, made.assistant_id, { input: human('hello') });
    await client.runs.join(t.thread_id, first.run_id);
    expect((await client.runs.get(t.thread_id, first.run_id)).status).toBe('success');
    expect((await systemPrompts()).some((p) => p.includes(`Answer tersely ${tag}.`))).toBe(true);
    const [pinned] = await stack.sql<{ max_steps: number }>('SELECT max_steps FROM runs WHERE id = $1', [
      first.run_id,
    ]);
    expect(pinned.max_steps).toBe(30);

    // An update is a new version (metadata merged; what is not sent stays); versions list both.
    const updated = await client.assistants.update(made.assistant_id, {
      context: { max_steps: 40 },
      metadata: { owner: 'b' },
    });
    expect(updated).toMatchObject({
      version: 2,
      name: 'terse',
      context: { max_steps: 40 },
      metadata: { tag, team: 'a', owner: 'b' },
      config: made.config,
    });
    const versions = await client.assistants.getVersions(made.assistant_id);
    expect(versions.map((v) => [v.version, v.context, v.metadata])).toEqual([
      [2, { max_steps: 40 }, { tag, team: 'a', owner: 'b' }],
      [1, { max_steps: 30 }, { tag, team: 'a' }],
    ]);
    expect(await client.assistants.getVersions(made.assistant_id, { metadata: { owner: 'b' } })).toHaveLength(
      1,
    );

    // Version 1 set latest: the assistant shows it and runs use it again; an unpublished draft
    // edit under /v1/agents stays.
    const edited = await stack.api('PATCH', `/v1/agents/${made.assistant_id}`, {
      system_prompt: `Draft ${tag}.`,
    });
    expect(edited.status).toBe(200);
    const back = await client.assistants.setLatest(made.assistant_id, 1);
    const draft = await stack.api('GET', `/v1/agents/${made.assistant_id}`);
    expect(draft.body.draft.system_prompt).toBe(`Draft ${tag}.`);
    expect(back).toMatchObject({ version: 1, context: { max_steps: 30 }, metadata: { tag, team: 'a' } });
    const second = await client.runs.create(t.thread_id, made.assistant_id, { input: human('again') });
    await client.runs.join(t.thread_id, second.run_id);
    const [again] = await stack.sql<{ max_steps: number }>('SELECT max_steps FROM runs WHERE id = $1', [
      second.run_id,
    ]);
    expect(again.max_steps).toBe(30);
    expect((await rejection(client.assistants.setLatest(made.assistant_id, 9))).status).toBe(404);

    // The graph is kept by id: renamed, or given a namesake, it is still the one made from.
    const base = await stack.api('POST', '/v1/agents', {
      name: `base-${tag}`,
      system_prompt: `Base ${tag}.`,
    });
    const child = await client.assistants.create({ graphId: `base-${tag}`, name: `child-${tag}` });
    expect(child.graph_id).toBe(`base-${tag}`);
    expect(await client.assistants.count({ graphId: `base-${tag}` })).toBe(2);
    await stack.api('PATCH', `/v1/agents/${base.body.id}`, { name: `renamed-${tag}` });
    await stack.api('POST', '/v1/agents', { name: `base-${tag}`, system_prompt: 'A namesake.' });
    const grown = await client.assistants.update(child.assistant_id, { context: { max_steps: 9 } });
    expect(grown).toMatchObject({ graph_id: `renamed-${tag}`, version: 2, context: { max_steps: 9 } });
    const [v2] = await stack.sql<{ config: { system_prompt?: string; max_steps: number } }>(
      'SELECT config FROM agent_versions WHERE agent_id = $1 AND version = 2',
      [child.assistant_id],
    );
    expect(v2.config).toMatchObject({ system_prompt: `Base ${tag}.`, max_steps: 9 });

    // Its own id, chosen: taken → 409, or the one there with if_exists do_nothing.
    const chosen = randomUUID();
    const own = await client.assistants.create({
      graphId: 'default',
      assistantId: chosen,
      context: { system_prompt: 'Hi.' },
    });
    expect(own).toMatchObject({ assistant_id: chosen, graph_id: 'default', name: 'Untitled' });
    expect(
      (await rejection(client.assistants.create({ graphId: 'default', assistantId: chosen }))).status,
    ).toBe(409);
    expect(
      (await client.assistants.create({ graphId: 'default', assistantId: chosen, ifExists: 'do_nothing' }))
        .assistant_id,
    ).toBe(chosen);

    // Settings that are none, values a setting does not take, a graph that is not there: 400.
    const refused: [string, () => Promise<unknown>][] = [
      [
        'config.configurable.temperature',
        () => client.assistants.create({ graphId: 'agent', config: { configurable: { temperature: 1 } } }),
      ],
      ['context.max_steps', () => client.assistants.create({ graphId: 'agent', context: { max_steps: 0 } })],
      ['config.tags', () => client.assistants.create({ graphId: 'agent', config: { tags: ['x'] } })],
      ['graph_id', () => client.assistants.create({ graphId: 'nobody' })],
      ['assistant_id', () => client.assistants.update('default', { name: 'x' })],
      ['assistant_id', () => client.assistants.delete('default')],
    ];
    for (const [field, call] of refused) {
      const err = await rejection(call());
      expect(err.status).toBe(400);
      expect(err.message).toContain(field);
    }

    // Deleted: gone from search and get; its runs stay readable; a new run of it is a 404.
    await client.assistants.delete(made.assistant_id);
    expect((await rejection(client.assistants.get(made.assistant_id))).status).toBe(404);
    expect(await client.assistants.search({ metadata: { tag } })).toEqual([]);
    expect((await client.runs.get(t.thread_id, first.run_id)).status).toBe('success');
    expect(
      (await rejection(client.runs.create(t.thread_id, made.assistant_id, { input: human('x') }))).status,
    ).toBe(404);
    expect((await client.threads.get(t.thread_id)).thread_id).toBe(t.thread_id);

    // delete_threads: the assistant's threads go with it.
    const t2 = await client.threads.create();
    await client.runs.wait(t2.thread_id, chosen, { input: human('hello') });
    await client.assistants.delete(chosen, { deleteThreads: true });
    expect((await rejection(client.threads.get(t2.thread_id))).status).toBe(404);
  }, 90_000);

  it("draws an agent's graph as LangGraph does, and gives its schemas", async () => {
    const client = new Client2({
      apiUrl: stack.gatewayUrl,
      apiKey: stack.key,
      callerOptions: { maxRetries: 0 },
    });
    // The default agent's topology (an agent with a prompt is one too).
    const plain = (await client.assistants.getGraph('agent')) as unknown as {
      nodes: { id: string; type: string }[];
      edges: { source: string; target: string; conditional?: boolean }[];
    };
    expect(plain.nodes[0]).toEqual({ id: '__start__', type: 'schema', data: { title: '__start__' } });
    expect(plain.nodes.map((n) => n.id)).toEqual(
      expect.arrayContaining(['start', 'intake', 'planner', 'tools', 'reflection', 'output', '__end__']),
    );
    expect(plain.edges).toEqual(
      expect.arrayContaining([
        { source: 'planner', target: 'tools', conditional: true },
        { source: 'tools', target: 'reflection' },
        { source: 'reflection', target: 'planner' },
      ]),
    );
    expect(await client.assistants.getGraph('default', { xray: true })).toEqual(plain);

    // A canvas: its components and edges; the Switch chooses, so its edges are conditional.
    const canvas = await stack.api('POST', '/v1/agents', {
      name: 'yes-or-no',
      kind: 'graph',
      dsl: {
        components: {
          begin: {
            obj: { component_name: 'Begin', params: { inputs: { city: { type: 'line', name: 'City' } } } },
            downstream: ['Switch:S'],
            upstream: [],
          },
          'Switch:S': {
            obj: {
              component_name: 'Switch',
              params: {
                conditions: [
                  {
                    logical_operator: 'and',
                    items: [{ cpn_id: 'sys.query', operator: 'contains', value: 'yes' }],
                    to: ['Message:Yes'],
                  },
                ],
                end_cpn_ids: ['Message:No'],
              },
            },
            downstream: ['Message:Yes', 'Message:No'],
            upstream: ['begin'],
          },
          'Message:Yes': {
            obj: { component_name: 'Message', params: { content: ['yes!'] } },
            downstream: [],
            upstream: ['Switch:S'],
          },
          'Message:No': {
            obj: { component_name: 'Message', params: { content: ['no.'] } },
            downstream: [],
            upstream: ['Switch:S'],
          },
        },
      },
    });
    expect(canvas.status).toBe(201);
    const drawn = (await client.assistants.getGraph('yes-or-no')) as unknown as typeof plain;
    expect(drawn.nodes.map((n) => n.id)).toEqual([
      '__start__',
      'begin',
      'Switch:S',
      'Message:Yes',
      'Message:No',
      '__end__',
    ]);
    expect(drawn.edges).toEqual([
      { source: '__start__', target: 'begin' },
      { source: 'begin', target: 'Switch:S' },
      { source: 'Switch:S', target: 'Message:Yes', conditional: true },
      { source: 'Switch:S', target: 'Message:No', conditional: true },
      { source: 'Message:Yes', target: '__end__' },
      { source: 'Message:No', target: '__end__' },
    ]);
    const schemas = await client.assistants.getSchemas('yes-or-no');
    expect(schemas.graph_id).toBe('yes-or-no');
    expect((schemas.input_schema as { required: string[] }).required).toEqual(['messages']);
    expect(
      (schemas.input_schema as { properties: { inputs: { properties: object; required: string[] } } })
        .properties.inputs,
    ).toMatchObject({ properties: { city: { description: 'City' } }, required: ['city'] });
    expect(Object.keys((schemas.state_schema as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['messages', 'todos', 'graph']),
    );
    expect(await client.assistants.getSubgraphs('yes-or-no')).toEqual({});
    expect((await rejection(client.assistants.getGraph('nobody'))).status).toBe(404);
  });
});
