import { TestStack } from '@switchyard/testing';

// RAGFlow's agent HTTP API (its reference's shapes: docs/references/http_api_reference.md of
// infiniflow/ragflow) against the real gateway, read as RAGFlow's own Python SDK reads it: the
// `{code, message, data}` envelope, and streams as `data:` lines ending with `[DONE]`. Agents are
// listed, sessions created, listed and deleted, completions streamed and not (a graph agent and
// the default agent), a form (UserFillUp) answered through the session, traces, the
// OpenAI-compatible mode, and the errors RAGFlow answers. The scripted model server
// (fixtures/a2a.script.json) answers the default agent.

let stack: TestStack;
let echoId: string;
let formId: string;

const cpn = (name: string, params: Record<string, unknown>, downstream: string[], upstream: string[]) => ({
  obj: { component_name: name, params },
  downstream,
  upstream,
});

async function call(method: string, path: string, body?: unknown, key = stack.key) {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the envelope is whatever RAGFlow's shape holds
  return (await res.json()) as any;
}

/** A streamed completion as RAGFlow's SDK reads it: every `data:` line's JSON, and whether `[DONE]` closed it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- RAGFlow's events, read as its SDK reads them
type Event = Record<string, any>;

async function stream(body: Record<string, unknown>): Promise<{ events: Event[]; done: boolean }> {
  const res = await fetch(`${stack.gatewayUrl}/api/v1/agents/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stack.key}` },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const events: Event[] = [];
  let done = false;
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('data:')) {
      continue;
    }
    const payload = line.slice(5).trim();
    if (payload === '[DONE]') {
      done = true;
    } else {
      events.push(JSON.parse(payload) as Event);
    }
  }
  return { events, done };
}

const contentOf = (events: Event[]) =>
  events
    .filter((e) => e.event === 'message')
    .map((e) => e.data.content as string)
    .join('');

beforeAll(async () => {
  stack = await TestStack.start({ script: 'apps/gateway/test/fixtures/a2a.script.json' });
  const echo = await stack.api('POST', '/v1/agents', {
    name: 'echo canvas',
    kind: 'graph',
    dsl: {
      components: {
        begin: cpn(
          'Begin',
          { prologue: 'Hi! I echo.', inputs: { tone: { name: 'Tone', type: 'line', optional: true } } },
          ['Message:Echo'],
          [],
        ),
        'Message:Echo': cpn('Message', { content: ['echo: {sys.query}'] }, [], ['begin']),
      },
    },
  });
  expect(echo.status).toBe(201);
  echoId = echo.body.id as string;
  const form = await stack.api('POST', '/v1/agents', {
    name: 'city canvas',
    kind: 'graph',
    dsl: {
      components: {
        begin: cpn('Begin', {}, ['UserFillUp:Ask'], []),
        'UserFillUp:Ask': cpn(
          'UserFillUp',
          { enable_tips: true, tips: 'Which city?', inputs: { city: { name: 'City', type: 'line' } } },
          ['Message:City'],
          ['begin'],
        ),
        'Message:City': cpn('Message', { content: ['city={UserFillUp:Ask@city}'] }, [], ['UserFillUp:Ask']),
      },
    },
  });
  expect(form.status).toBe(201);
  formId = form.body.id as string;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe("RAGFlow's agent API", () => {
  it('lists the agents as RAGFlow lists canvases', async () => {
    const listed = await call('GET', '/api/v1/agents?page=1&page_size=10&orderby=create_time&desc=false');
    expect(listed.code).toBe(0);
    expect(listed.data.map((a: { title: string }) => a.title)).toEqual(['echo canvas', 'city canvas']);
    expect(listed.data[0].dsl.components['Message:Echo']).toBeDefined();
    const one = await call('GET', `/api/v1/agents?id=${formId}`);
    expect(one.data.map((a: { id: string }) => a.id)).toEqual([formId]);
  });

  it('a session: created with its prologue, answered (not streamed), listed with its messages', async () => {
    const created = await call('POST', `/api/v1/agents/${echoId}/sessions?user_id=u-1`, { name: 'first' });
    expect(created.code).toBe(0);
    expect(created.data).toMatchObject({
      agent_id: echoId,
      name: 'first',
      source: 'agent',
      user_id: 'u-1',
      message: [{ role: 'assistant', content: 'Hi! I echo.' }],
    });
    const sessionId = created.data.id as string;
    const answered = await call('POST', '/api/v1/agents/chat/completions', {
      agent_id: echoId,
      query: 'hello',
      stream: false,
      session_id: sessionId,
    });
    expect(answered.code).toBe(0);
    // RAGFlow's Message eats the blank before a reference.
    expect(answered.data).toMatchObject({
      event: 'message_end',
      session_id: sessionId,
      data: { content: 'echo:hello', reference: {} },
    });
    const listed = await call('GET', `/api/v1/agents/${echoId}/sessions?user_id=u-1&dsl=false`);
    expect(listed.code).toBe(0);
    expect(listed.total).toBe(1);
    expect(listed.data[0]).toMatchObject({
      id: sessionId,
      message: [
        { role: 'assistant', content: 'Hi! I echo.' },
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'echo:hello' },
      ],
    });
    expect(listed.data[0].dsl).toBeUndefined();
    const got = await call('GET', `/api/v1/agents/${echoId}/sessions/${sessionId}`);
    expect(got.data.message).toHaveLength(3);
  }, 60_000);

  it("streams RAGFlow's events, ending with [DONE]; a completion without a session makes one", async () => {
    const { events, done } = await stream({ agent_id: echoId, query: 'streamed' });
    expect(done).toBe(true);
    const kinds = events.map((e) => e.event as string);
    expect(kinds[0]).toBe('workflow_started');
    expect(kinds).toEqual(
      expect.arrayContaining(['node_started', 'message', 'message_end', 'node_finished']),
    );
    expect(kinds[kinds.length - 1]).toBe('workflow_finished');
    expect(contentOf(events)).toBe('echo:streamed');
    const sessionId = events[0].session_id as string;
    expect(events.every((e) => e.session_id === sessionId)).toBe(true);
    const listed = await call('GET', `/api/v1/agents/${echoId}/sessions?id=${sessionId}`);
    expect(listed.data).toHaveLength(1);
  }, 60_000);

  it("a form (UserFillUp) ends the stream with user_inputs; the session's next completion fills it", async () => {
    const first = await stream({ agent_id: formId, query: 'start' });
    expect(first.done).toBe(true);
    const asked = first.events.find((e) => e.event === 'user_inputs');
    expect(asked?.data).toMatchObject({
      tips: 'Which city?',
      inputs: { city: { name: 'City', type: 'line' } },
    });
    expect(first.events.some((e) => e.event === 'workflow_finished')).toBe(false);
    const sessionId = asked?.session_id as string;
    const second = await stream({
      agent_id: formId,
      query: '',
      session_id: sessionId,
      inputs: { city: { type: 'line', value: 'Oslo' } },
    });
    expect(contentOf(second.events)).toBe('city=Oslo');
    expect(second.events[second.events.length - 1].event).toBe('workflow_finished');
    expect(second.events.every((e) => e.session_id === sessionId)).toBe(true);
  }, 60_000);

  it('return_trace: each finished component is in the trace', async () => {
    const answered = await call('POST', `/api/v1/agents/${echoId}/completions`, {
      question: 'traced',
      stream: false,
      return_trace: true,
    });
    expect(answered.code).toBe(0);
    expect(answered.data.data.content).toBe('echo:traced');
    expect(answered.data.data.trace.map((t: { component_id: string }) => t.component_id)).toEqual(
      expect.arrayContaining(['begin', 'Message:Echo']),
    );
  }, 60_000);

  it('the default agent answers in the same events', async () => {
    const { events, done } = await stream({ agent_id: 'default', query: 'hello default' });
    expect(done).toBe(true);
    expect(contentOf(events)).toBe('one two three four five six seven eight');
    expect(events.some((e) => e.event === 'message_end')).toBe(true);
    expect(events[events.length - 1].event).toBe('workflow_finished');
  }, 60_000);

  it('the OpenAI-compatible mode: a chat completion, streamed or not, in the session', async () => {
    const created = await call('POST', `/api/v1/agents/${echoId}/sessions`, {});
    const sessionId = created.data.id as string;
    const plain = await call('POST', '/api/v1/agents/chat/completions', {
      agent_id: echoId,
      'openai-compatible': true,
      session_id: sessionId,
      messages: [{ role: 'user', content: 'compat' }],
    });
    expect(plain).toMatchObject({
      object: 'chat.completion',
      model: echoId,
      choices: [{ finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'echo:compat' } }],
    });
    const res = await fetch(`${stack.gatewayUrl}/api/v1/agents/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stack.key}` },
      body: JSON.stringify({
        agent_id: echoId,
        'openai-compatible': true,
        stream: true,
        session_id: sessionId,
        messages: [{ role: 'user', content: 'compat stream' }],
      }),
    });
    const lines = (await res.text()).split('\n').filter((l) => l.startsWith('data: '));
    expect(lines[lines.length - 1]).toBe('data: [DONE]');
    const chunks = lines
      .slice(0, -1)
      .map((l) => JSON.parse(l.slice(6)) as { choices: { delta: { content?: string } }[] });
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('echo:compat stream');
    const listed = await call('GET', `/api/v1/agents/${echoId}/sessions?id=${sessionId}`);
    expect(listed.data[0].message.filter((m: { role: string }) => m.role === 'user')).toHaveLength(2);
  }, 60_000);

  it('deletes sessions by id (reporting what it could not) and all of them', async () => {
    const a = (await call('POST', `/api/v1/agents/${echoId}/sessions`, {})).data.id as string;
    const partial = await call('DELETE', `/api/v1/agents/${echoId}/sessions`, { ids: [a, 'not-a-session'] });
    expect(partial.code).toBe(0);
    expect(partial.data).toEqual({
      success_count: 1,
      errors: ["The agent doesn't own the session not-a-session"],
    });
    expect((await call('GET', `/api/v1/agents/${echoId}/sessions?id=${a}`)).data).toEqual([]);
    const none = await call('DELETE', `/api/v1/agents/${echoId}/sessions`, { ids: ['not-a-session'] });
    expect(none.code).toBe(102);
    expect((await call('DELETE', `/api/v1/agents/${echoId}/sessions`, { delete_all: true })).code).toBe(0);
    expect((await call('GET', `/api/v1/agents/${echoId}/sessions`)).total).toBe(0);
  }, 60_000);

  it("a task's cancel (as RAGFlow's task API) stops the run under a stream", async () => {
    const res = await fetch(`${stack.gatewayUrl}/api/v1/agents/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${stack.key}` },
      body: JSON.stringify({ agent_id: 'default', query: '[slow] take your time', stream: true }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    let cancelled = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        break;
      }
      text += decoder.decode(value, { stream: true });
      const first = /data:(\{"event":"message".*)\n/.exec(text);
      if (first && !cancelled) {
        cancelled = true;
        const taskId = (JSON.parse(first[1]) as { task_id: string }).task_id;
        expect(await call('POST', `/api/v1/tasks/${taskId}/cancel`)).toEqual({
          code: 0,
          message: 'success',
          data: true,
        });
        expect((await stack.api('GET', `/v1/runs/${taskId}`)).body.status).toMatch(/running|cancelled/);
        // Stopping it again is no error; a stranger's task is not found.
        expect((await call('PATCH', `/api/v1/tasks/${taskId}`, { action: 'stop' })).code).toBe(0);
        expect((await call('POST', '/api/v1/tasks/00000000-0000-4000-8000-000000000000/cancel')).code).toBe(
          102,
        );
      }
    }
    expect(cancelled).toBe(true);
    const events = text
      .split('\n')
      .filter((l) => l.startsWith('data:{'))
      .map((l) => JSON.parse(l.slice(5)) as Event);
    expect(events[events.length - 1]).toMatchObject({
      event: 'workflow_finished',
      data: { outputs: 'Task has been canceled' },
    });
    expect(text.trimEnd().endsWith('data:[DONE]')).toBe(true);
  }, 60_000);

  it('answers errors as RAGFlow does: HTTP 200 with the code', async () => {
    expect(await call('POST', '/api/v1/agents/chat/completions', { query: 'x' })).toMatchObject({
      code: 101,
      message: '`agent_id` is required.',
    });
    expect(
      await call('POST', '/api/v1/agents/chat/completions', {
        agent_id: '00000000-0000-4000-8000-000000000000',
        query: 'x',
      }),
    ).toMatchObject({ code: 102, message: 'Agent not found.' });
    expect(
      await call('POST', '/api/v1/agents/chat/completions', {
        agent_id: echoId,
        query: 'x',
        session_id: 'nope',
      }),
    ).toMatchObject({ code: 102, message: 'Session not found!' });
    expect(
      (await call('POST', '/api/v1/agents/chat/completions', { agent_id: echoId, query: 'x', colour: 'red' }))
        .code,
    ).toBe(101);
    // A Begin input named at the top level is taken, as RAGFlow takes it.
    expect(
      (await call('POST', '/api/v1/agents/chat/completions', { agent_id: echoId, query: 'x', tone: 'calm' }))
        .code,
    ).toBe(0);
    expect((await call('GET', '/api/v1/agents', undefined, 'sk-not-a-key')).code).toBe(109);
  }, 60_000);
});
