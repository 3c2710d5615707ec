import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ListTasksRequest,
  type Part,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { TestStack, waitFor } from '@switchyard/testing';

// Each agent as an A2A server, driven by the official @a2a-js/sdk client (A2A 1.0) against the
// real gateway: the agent card, a blocking send, a stream (steps as working updates, the answer
// as artifact chunks), a task that wants input answered with a data part, cancel, resubscribe
// (replayed from the run's event log), push notifications to a local receiver, a graph agent's
// form, a v0.3 client's message/send, and the errors. Real services; the scripted model server
// (fixtures/a2a.script.json).

let stack: TestStack;
const received: { path?: string; headers: IncomingHttpHeaders; body: unknown }[] = [];
let receiver: Server;
let receiverUrl: string;

const authed =
  (key: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };

async function clientFor(agent: string, key = stack.key): Promise<Client> {
  const fetchImpl = authed(key);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  // The agent's base URL ends with a slash: the card is found relative to it.
  return factory.createFromUrl(`${stack.gatewayUrl}/a2a/${encodeURIComponent(agent)}/`);
}

/** A user message (A2A 1.0 JSON), to start a task or to answer one. */
function send(
  parts: unknown[],
  extra: Record<string, unknown> = {},
  configuration?: Record<string, unknown>,
) {
  return SendMessageRequest.fromJSON({
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts, ...extra },
    ...(configuration ? { configuration } : {}),
  });
}

const textOf = (parts: Part[] | undefined): string =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

function asTask(result: unknown): Task {
  const t = result as Task;
  if (!t.status) {
    throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  }
  return t;
}

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) {
    out.push(e);
  }
  return out;
}

/** The answer a stream's artifact chunks spell, and the task's last state. */
function streamed(events: StreamResponse[]): {
  answer: string;
  last: TaskState | undefined;
  working: number;
} {
  let answer = '';
  let last: TaskState | undefined;
  let working = 0;
  for (const e of events) {
    const p = e.payload;
    if (p?.$case === 'artifactUpdate') {
      const text = textOf(p.value.artifact?.parts);
      answer = p.value.append ? answer + text : text;
    } else if (p?.$case === 'statusUpdate') {
      last = p.value.status?.state;
      working += last === TaskState.TASK_STATE_WORKING ? 1 : 0;
    } else if (p?.$case === 'task') {
      last = p.value.status?.state;
    }
  }
  return { answer, last, working };
}

const cpn = (name: string, params: Record<string, unknown>, downstream: string[], upstream: string[]) => ({
  obj: { component_name: name, params },
  downstream,
  upstream,
});

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url, headers: req.headers, body: JSON.parse(body) as unknown });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/a2a-push`;
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/a2a.script.json',
    env: { SWITCHYARD_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
  });
  for (const [name, components] of Object.entries({
    'echo graph': {
      begin: cpn('Begin', {}, ['Message:Echo'], []),
      'Message:Echo': cpn('Message', { content: ['echo: {sys.query}'] }, [], ['begin']),
    },
    'city form': {
      begin: cpn('Begin', {}, ['UserFillUp:Ask'], []),
      'UserFillUp:Ask': cpn(
        'UserFillUp',
        { enable_tips: true, tips: 'Which city?', inputs: { city: { name: 'City', type: 'line' } } },
        ['Message:City'],
        ['begin'],
      ),
      'Message:City': cpn('Message', { content: ['city={UserFillUp:Ask@city}'] }, [], ['UserFillUp:Ask']),
    },
  })) {
    const res = await stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl: { components } });
    expect(res.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => receiver?.close(r));
});

describe('A2A', () => {
  it("serves the agent's card to the tenant's key only", async () => {
    const client = await clientFor('default');
    const card = await client.getAgentCard();
    expect(card.name).toBe('Switchyard default agent');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '0.3']);
    const anonymous = await fetch(`${stack.gatewayUrl}/a2a/default/.well-known/agent-card.json`);
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${stack.gatewayUrl}/a2a/nobody/.well-known/agent-card.json`, {
      headers: { Authorization: `Bearer ${stack.key}` },
    });
    expect(unknown.status).toBe(404);
  });

  it('a blocking send completes the task; its context goes on in the same thread', async () => {
    const client = await clientFor('default');
    const task = asTask(await client.sendMessage(send([{ text: 'hello there' }])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0]?.parts)).toBe('one two three four five six seven eight');
    const run = await stack.api('GET', `/v1/runs/${task.id}`);
    expect(run.body).toMatchObject({ status: 'succeeded', thread_id: task.contextId });
    expect(run.body.metadata.source).toBe('a2a');
    const again = await client.getTask({ tenant: '', id: task.id, historyLength: 2 });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.history.map((m) => textOf(m.parts))).toEqual([
      'hello there',
      'one two three four five six seven eight',
    ]);
    const next = asTask(
      await client.sendMessage(send([{ text: 'and again' }], { contextId: task.contextId })),
    );
    expect(next.id).not.toBe(task.id);
    expect(next.contextId).toBe(task.contextId);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: task.contextId }));
    expect(listed.tasks.map((t) => t.id)).toEqual([next.id, task.id]);
    // A page at a time, newest first.
    const first = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId: task.contextId, pageSize: 1 }),
    );
    expect(first.tasks.map((t) => t.id)).toEqual([next.id]);
    expect(first.totalSize).toBe(2);
    const second = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId: task.contextId, pageSize: 1, pageToken: first.nextPageToken }),
    );
    expect(second.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(second.nextPageToken).toBe('');
  }, 60_000);

  it('streams the steps as working updates and the answer as artifact chunks', async () => {
    const client = await clientFor('default');
    const events = await collect(client.sendMessageStream(send([{ text: 'stream it' }])));
    expect(events[0].payload?.$case).toBe('task');
    const { answer, last, working } = streamed(events);
    expect(answer).toBe('one two three four five six seven eight');
    expect(last).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(working).toBeGreaterThan(2);
    const chunks = events.filter((e) => e.payload?.$case === 'artifactUpdate');
    expect(chunks.length).toBeGreaterThan(2);
  }, 60_000);

  it('a task that wants input is answered with a data part and goes on', async () => {
    const client = await clientFor('default');
    const asked = asTask(await client.sendMessage(send([{ text: '[ask] greet me' }])));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message?.parts)).toContain('What is your name?');
    // Text that is not the JSON the question wants is refused; the task keeps waiting.
    await expect(client.sendMessage(send([{ text: 'Ada' }], { taskId: asked.id }))).rejects.toThrow(
      /data part/,
    );
    const answered = asTask(
      await client.sendMessage(
        send([{ data: { name: 'Ada' } }], { taskId: asked.id, contextId: asked.contextId }),
      ),
    );
    expect(answered.id).toBe(asked.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(answered.artifacts[0]?.parts)).toBe('Hello Ada!');
  }, 60_000);

  it("a graph agent's form asks through input-required and answers", async () => {
    const echo = await clientFor('echo graph');
    const echoed = asTask(await echo.sendMessage(send([{ text: 'hi graph' }])));
    // RAGFlow's Message eats the blank before a reference.
    expect(textOf(echoed.artifacts[0]?.parts)).toBe('echo:hi graph');
    const form = await clientFor('city form');
    const asked = asTask(await form.sendMessage(send([{ text: 'start' }])));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked.status?.message?.parts)).toContain('Which city?');
    const done = asTask(await form.sendMessage(send([{ data: { city: 'Oslo' } }], { taskId: asked.id })));
    expect(textOf(done.artifacts[0]?.parts)).toBe('city=Oslo');
  }, 60_000);

  it('cancel reaches the run; a finished task is not cancelable', async () => {
    const client = await clientFor('default');
    const started = asTask(
      await client.sendMessage(send([{ text: '[slow] take your time' }], {}, { returnImmediately: true })),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);
    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await stack.api('GET', `/v1/runs/${started.id}`)).body.status).toBe('cancelled');
    await expect(client.cancelTask({ tenant: '', id: started.id, metadata: undefined })).rejects.toThrow(
      /already cancelled/,
    );
    await expect(
      client.getTask({ tenant: '', id: '00000000-0000-4000-8000-000000000000', historyLength: undefined }),
    ).rejects.toThrow(/no task/);
  }, 60_000);

  it("resubscribe replays the task from the run's event log, then follows it live", async () => {
    const client = await clientFor('default');
    const started = asTask(
      await client.sendMessage(send([{ text: '[medium] a while' }], {}, { returnImmediately: true })),
    );
    await waitFor(
      'the run to work',
      async () => (await stack.api('GET', `/v1/runs/${started.id}`)).body.status === 'running',
      20_000,
    );
    const events = await collect(client.resubscribeTask({ tenant: '', id: started.id }));
    const { answer, last } = streamed(events);
    expect(last).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answer).toBe(Array.from({ length: 60 }, (_, i) => `w${i}`).join(' '));
    await expect(collect(client.resubscribeTask({ tenant: '', id: started.id }))).rejects.toThrow(
      /succeeded/,
    );
  }, 60_000);

  it('push notifications: the task is POSTed to the config with its token as it changes', async () => {
    const client = await clientFor('default');
    const task = asTask(
      await client.sendMessage(
        send(
          [{ text: '[ask] push me' }],
          {},
          { taskPushNotificationConfig: { url: receiverUrl, token: 'tok-1' } },
        ),
      ),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const configs = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(configs.configs).toHaveLength(1);
    expect(configs.configs[0]).toMatchObject({ url: receiverUrl, token: 'tok-1' });
    const second = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: task.id,
        id: 'second',
        url: `${receiverUrl}/2`,
        authentication: { scheme: 'Bearer', credentials: 'secret-2' },
      }),
    );
    expect(second.id).toBe('second');
    /** The notifications of this task in `state`. */
    const pushed = (state: string) =>
      received.filter((r) => {
        const t = (r.body as { task?: { id: string; status?: { state: string } } }).task;
        return t?.id === task.id && t.status?.state === state;
      });
    // The first config's: the input-required notification may also reach the second config,
    // made meanwhile, and in either order.
    const firstConfigs = (state: string) => pushed(state).filter((r) => r.path === '/a2a-push');
    await waitFor(
      'the input-required notification',
      () => Promise.resolve(firstConfigs('TASK_STATE_INPUT_REQUIRED').length > 0),
      20_000,
    );
    expect(firstConfigs('TASK_STATE_INPUT_REQUIRED')[0].headers['x-a2a-notification-token']).toBe('tok-1');
    await client.sendMessage(send([{ data: { name: 'Bo' } }], { taskId: task.id }));
    await waitFor(
      'both completed notifications',
      () => Promise.resolve(pushed('TASK_STATE_COMPLETED').length >= 2),
      20_000,
    );
    expect(
      pushed('TASK_STATE_COMPLETED')
        .map((r) => r.headers['authorization'] ?? r.headers['x-a2a-notification-token'])
        .sort(),
    ).toEqual(['Bearer secret-2', 'tok-1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'second' });
    expect(
      (
        await client.listTaskPushNotificationConfig({
          tenant: '',
          taskId: task.id,
          pageSize: 0,
          pageToken: '',
        })
      ).configs,
    ).toHaveLength(1);
  }, 60_000);

  it("a v0.3 client's message/send and tasks/get are served too", async () => {
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(`${stack.gatewayUrl}/a2a/default`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stack.key}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await res.json()) as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string };
      };
    };
    const sent = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: 'legacy-1',
        role: 'user',
        parts: [{ kind: 'text', text: 'old client' }],
      },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const got = await rpc('tasks/get', { id: sent.result?.['id'] });
    expect(got.result).toMatchObject({ id: sent.result?.['id'], status: { state: 'completed' } });
  }, 60_000);
});
