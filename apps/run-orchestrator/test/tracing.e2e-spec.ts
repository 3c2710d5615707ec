import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestStack, waitFor } from '@switchyard/testing';

// One trace per run across every NATS hop: the services export OTLP/HTTP (JSON) to a receiver in
// this test process; the spans of a run with a tool call, and of a task delivered twice (its
// service killed while it worked), must form one connected trace, with the run's attributes.

interface Span {
  service: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  status?: { code?: number };
}

const spans: Span[] = [];
let receiver: Server;
let stack: TestStack;

function attrs(list: { key: string; value: Record<string, unknown> }[] = []): Record<string, unknown> {
  return Object.fromEntries(
    list.map((a) => {
      const v = a.value;
      return [
        a.key,
        v['stringValue'] ??
          (v['intValue'] !== undefined ? Number(v['intValue']) : (v['boolValue'] ?? v['doubleValue'])),
      ];
    }),
  );
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const doc = JSON.parse(body) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: Record<string, unknown> }[] };
          scopeSpans: { spans: (Omit<Span, 'attributes' | 'service'> & { attributes: [] })[] }[];
        }[];
      };
      for (const rs of doc.resourceSpans ?? []) {
        const service = String(attrs(rs.resource.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({ ...s, service, attributes: attrs(s.attributes) });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // A killed planner's task comes back soon.
      SWITCHYARD_ACK_WAIT_MS: '2000',
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => receiver?.close(r));
});

/** The run's trace: every span whose trace holds the run's `run.create` span. */
async function traceOf(runId: string, until: (trace: Span[]) => boolean): Promise<Span[]> {
  let trace: Span[] = [];
  await waitFor(
    `the spans of run ${runId}`,
    async () => {
      const root = spans.find((s) => s.name === 'run.create' && s.attributes['run_id'] === runId);
      trace = root ? spans.filter((s) => s.traceId === root.traceId) : [];
      if (until(trace)) {
        return true;
      }
      // Thrown, so that a timeout says what the trace held.
      throw new Error(
        `spans so far: ${trace.map((s) => `${s.name}${s.attributes['attempt'] === undefined ? '' : `#${String(s.attributes['attempt'])}`}`).join(', ') || 'none'}`,
      );
    },
    20_000,
  );
  return trace;
}

/**
 * One root, `run.create`. `orphansBefore`: a process killed at `atMs` never ends (nor exports)
 * its open spans, nor the ended ones still waiting in its export batch. So, and only so, spans
 * from before the kill may miss their parent: the killed service's own, and the orchestrator's
 * steps for the deltas that service's lost spans sent.
 */
function expectConnected(trace: Span[], orphansBefore?: { service: string; atMs: number }): void {
  const ids = new Set(trace.map((s) => s.spanId));
  const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  const orphans = roots.filter((s) => s.name !== 'run.create');
  expect(roots.filter((s) => s.name === 'run.create')).toHaveLength(1);
  for (const o of orphans) {
    const allowed =
      orphansBefore !== undefined &&
      (o.service === `switchyard-${orphansBefore.service}` ||
        (o.service === 'switchyard-run-orchestrator' && o.name.startsWith('step ')));
    expect(allowed ? true : `orphan ${o.name} of ${o.service}`).toBe(true);
    expect(Number(BigInt(o.startTimeUnixNano) / 1_000_000n)).toBeLessThan(orphansBefore?.atMs ?? 0);
  }
}

it('traces a run with a tool call end to end: gateway, orchestrator, every node, model and tool calls', async () => {
  const res = await stack.api('POST', '/v1/runs', { input: { prompt: 'what is 2+3*4?' } });
  const runId = res.body.run_id as string;
  expect((await stack.ended(runId)).status).toBe('succeeded');
  const nodes = ['intake', 'memory', 'planner', 'calculator', 'reflection', 'output'];
  const trace = await traceOf(
    runId,
    (t) =>
      nodes.every((n) => t.some((s) => s.name === `node ${n}`)) && t.some((s) => s.name.startsWith('llm ')),
  );
  expectConnected(trace);
  expect(new Set(trace.map((s) => s.service))).toEqual(
    new Set([
      'switchyard-gateway',
      'switchyard-run-orchestrator',
      'switchyard-planner',
      'switchyard-tool-executor',
      'switchyard-reflection',
      'switchyard-retrieval',
      'switchyard-output',
    ]),
  );
  const node = trace.find((s) => s.name === 'node planner');
  expect(node?.attributes).toMatchObject({ run_id: runId, node: 'planner', attempt: 1 });
  expect(node?.attributes['thread_id']).toBe(res.body.thread_id);
  const llm = trace.find((s) => s.name.startsWith('llm '));
  expect(llm?.attributes).toMatchObject({ model: 'scripted' });
  expect(Number(llm?.attributes['gen_ai.usage.output_tokens'])).toBeGreaterThan(0);
  expect(trace.find((s) => s.name === 'tool calculator')?.attributes).toMatchObject({ tool: 'calculator' });
  // The orchestrator's consumer spans carry the run too.
  expect(
    trace.some((s) => s.service === 'switchyard-run-orchestrator' && s.attributes['run_id'] === runId),
  ).toBe(true);
  // Logs written inside a span carry its trace id.
  expect(stack.log('planner')).toContain(`"trace_id":"${node?.traceId}"`);
});

it('keeps a redelivered task in the run\u2019s trace', async () => {
  // The planner's model call sleeps 4 s on [slow]: killed meanwhile, its task comes back to a new
  // planner. Killed only once the call reached the model server: a task published but not yet
  // pulled would come back as a first delivery.
  await fetch(`${stack.llmUrl}/_requests`, { method: 'DELETE' });
  const res = await stack.api('POST', '/v1/runs', { input: { prompt: '[slow] what now?' } });
  const runId = res.body.run_id as string;
  await waitFor('the planner to call the model', async () => {
    const records = (await (await fetch(`${stack.llmUrl}/_requests`)).json()) as { rule: string | null }[];
    return records.some((r) => r.rule === 'planner-slow');
  });
  const killedAt = Date.now();
  stack.kill('planner');
  await stack.restart('planner');
  expect((await stack.ended(runId)).status).toBe('succeeded');
  const trace = await traceOf(
    runId,
    (t) =>
      t.some((s) => s.name === 'node planner' && Number(s.attributes['attempt']) >= 2) &&
      t.some((s) => s.name === 'node output'),
  );
  expectConnected(trace, { service: 'planner', atMs: killedAt });
  const redelivered = trace.find((s) => s.name === 'node planner' && Number(s.attributes['attempt']) >= 2);
  // (JetStream may number it delivery 1 again when the earlier client died; the attempt counts
  // starts, so it is a retry all the same.)
  expect(Number(redelivered?.attributes['messaging.message.delivery_count'])).toBeGreaterThanOrEqual(1);
  // Its parent is the orchestrator's step that dispatched it, as the first delivery's was.
  expect(trace.find((s) => s.spanId === redelivered?.parentSpanId)?.service).toBe(
    'switchyard-run-orchestrator',
  );
});

it('traces a run queued behind its thread’s run in its own trace, started by the end of the one before', async () => {
  const first = await stack.api('POST', '/v1/runs', { input: { prompt: '[slow] what now?' } });
  const threadId = first.body.thread_id as string;
  const queued = await stack.api('POST', '/v1/runs', {
    thread_id: threadId,
    multitask: 'enqueue',
    input: { prompt: 'what is 2+3*4?' },
  });
  expect(queued.status).toBe(202);
  expect(queued.body.status).toBe('queued');
  const runId = queued.body.run_id as string;
  expect((await stack.ended(runId)).status).toBe('succeeded');
  const trace = await traceOf(
    runId,
    (t) => t.some((s) => s.name === 'node planner') && t.some((s) => s.name === 'node output'),
  );
  expectConnected(trace);
  // Started by the first run's last step, yet none of its spans is in the first run's trace.
  const firstTrace = await traceOf(first.body.run_id as string, (t) =>
    t.some((s) => s.name === 'node output'),
  );
  expect(firstTrace[0]?.traceId).not.toBe(trace[0]?.traceId);
  expect(trace.find((s) => s.name === 'run.start')?.attributes['run_id']).toBe(runId);
  expect(
    trace.filter((s) => s.attributes['run_id'] !== undefined).every((s) => s.attributes['run_id'] === runId),
  ).toBe(true);
});
