// Gateway benchmark: 1,000 concurrent SSE subscribers following live runs on one gateway process
// (memory per connection; delay from an event's write to Redis to its arrival at a client), and
// POST /v1/runs throughput at 64 connections. Usage: node dist/tools/bench/src/gateway.bench.js
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import Redis from 'ioredis';
import { sseFrames } from '@switchyard/client';
import { TestStack } from '@switchyard/testing';
import { machine } from './machine';
import { fmtBytes, fmtMs, markdownTable, median } from './stats';

const SUBSCRIBERS = Number(process.env['BENCH_SUBSCRIBERS'] ?? 1000);
const RUNS = 10;
const EVENTS = 100;
const EVENT_GAP_MS = 20;
const POST_CONNECTIONS = 64;
const POST_SECONDS = 10;
const REPEATS = 3;

const out = (s: string) => process.stdout.write(s);

function rssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : Number.NaN;
}

/** Opens an SSE stream and calls `onData` with each frame's data; resolves once the headers came. */
function subscribe(
  url: string,
  key: string,
  agent: Agent,
  onData: (data: string) => void,
): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`SSE answered ${res.statusCode}`));
          return;
        }
        // Read until the stream is destroyed (the closer) or ends.
        void (async () => {
          try {
            for await (const frame of sseFrames(res)) {
              onData(frame.data);
            }
          } catch {
            // Destroyed by its closer.
          }
        })();
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function sseRound(
  stack: TestStack,
  runIds: string[],
  round: number,
): Promise<{ perConnection: number; p50: number; p99: number; delivered: number }> {
  const gatewayPid = stack.pid('gateway')!;
  // New subscribers replay the earlier rounds' events too: only this round's are timed.
  const marker = `bench:${round}:`;
  const agent = new Agent({ keepAlive: true, maxSockets: SUBSCRIBERS + 10 });
  global.gc?.();
  await new Promise((r) => setTimeout(r, 1000));
  const before = rssOf(gatewayPid);
  const delays: number[] = [];
  const closers: (() => void)[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const runId = runIds[i % runIds.length];
    closers.push(
      await subscribe(`${stack.gatewayUrl}/v1/runs/${runId}/events`, stack.key, agent, (data) => {
        const e = JSON.parse(data) as { event_type: string; payload: { text?: string } };
        if (e.event_type === 'token' && e.payload.text?.startsWith(marker)) {
          delays.push(Date.now() - Number(e.payload.text.slice(marker.length)));
        }
      }),
    );
  }
  await new Promise((r) => setTimeout(r, 2000));
  const after = rssOf(gatewayPid);
  // Events written straight to the runs' Redis Streams, as the services write them.
  const redis = new Redis(stack.redisUrl);
  for (let n = 0; n < EVENTS; n++) {
    const pipe = redis.pipeline();
    for (const runId of runIds) {
      pipe.xadd(
        `sy:run:${runId}:events`,
        '*',
        'type',
        'token',
        'payload',
        JSON.stringify({ node: 'bench', task_id: 'bench', text: `${marker}${Date.now()}` }),
        'ts',
        String(Date.now()),
      );
    }
    await pipe.exec();
    await new Promise((r) => setTimeout(r, EVENT_GAP_MS));
  }
  await new Promise((r) => setTimeout(r, 2000));
  redis.disconnect();
  for (const close of closers) {
    close();
  }
  agent.destroy();
  return {
    perConnection: (after - before) / SUBSCRIBERS,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    delivered: delays.length,
  };
}

async function postRound(
  stack: TestStack,
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: POST_CONNECTIONS });
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + POST_SECONDS * 1000;
  const post = () =>
    new Promise<number>((resolve) => {
      const body = JSON.stringify({ input: { prompt: 'what is 2+3*4?' } });
      const req = request(
        `${stack.gatewayUrl}/v1/runs`,
        {
          method: 'POST',
          agent,
          headers: {
            Authorization: `Bearer ${stack.key}`,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(body);
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: POST_CONNECTIONS }, async () => {
      while (Date.now() < until) {
        const t = performance.now();
        const status = await post();
        latencies.push(performance.now() - t);
        if (status !== 202) {
          errors++;
        }
      }
    }),
  );
  agent.destroy();
  return {
    rps: latencies.length / ((Date.now() - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

async function main(): Promise<void> {
  const m = machine();
  out(`gateway benchmark on ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}\n`);
  const stack = await TestStack.start({
    script: 'tools/bench/fixtures/gateway.script.json',
    env: {
      LOG_LEVEL: 'warn',
      SWITCHYARD_RATE_LIMIT_PER_SECOND: '1000000',
      SWITCHYARD_RATE_LIMIT_BURST: '1000000',
      SWITCHYARD_MAX_ACTIVE_RUNS: '1000000',
      SWITCHYARD_TASK_TIMEOUT_MS: '600000',
      SWITCHYARD_LLM_TIMEOUT_MS: '600000',
    },
  });
  try {
    // Live runs that stay live: their planner waits on a slow model reply.
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const res = await stack.api('POST', '/v1/runs', { input: { prompt: '[hold] keep running' } });
      runIds.push(res.body.run_id as string);
    }
    const sse = [];
    for (let i = 0; i < REPEATS; i++) {
      sse.push(await sseRound(stack, runIds, i));
      out(
        `  SSE round ${i + 1}: ${fmtBytes(sse[i].perConnection)}/connection, p50 ${fmtMs(sse[i].p50)}, p99 ${fmtMs(sse[i].p99)}, ${sse[i].delivered} deliveries\n`,
      );
    }
    // Runs created here stay queued: the orchestrator is stopped so the measure is the gateway's.
    await stack.stopService('run-orchestrator');
    const posts = [];
    for (let i = 0; i < REPEATS; i++) {
      posts.push(await postRound(stack));
      out(
        `  POST round ${i + 1}: ${posts[i].rps.toFixed(0)} req/s, p50 ${fmtMs(posts[i].p50)}, p99 ${fmtMs(posts[i].p99)}, ${posts[i].errors} errors\n`,
      );
    }
    const table = markdownTable(
      ['metric (median of 3 rounds)', 'value'],
      [
        [`SSE subscribers on one gateway process`, String(SUBSCRIBERS)],
        [
          'gateway memory per SSE connection (RSS delta / connections)',
          fmtBytes(median(sse.map((s) => s.perConnection))),
        ],
        ['event write to Redis → client arrival, p50', fmtMs(median(sse.map((s) => s.p50)))],
        ['event write to Redis → client arrival, p99', fmtMs(median(sse.map((s) => s.p99)))],
        ['deliveries per round (events × subscribers)', String(median(sse.map((s) => s.delivered)))],
        [
          `POST /v1/runs at ${POST_CONNECTIONS} connections`,
          `${median(posts.map((p) => p.rps)).toFixed(0)} req/s`,
        ],
        [
          'POST /v1/runs latency p50 / p99',
          `${fmtMs(median(posts.map((p) => p.p50)))} / ${fmtMs(median(posts.map((p) => p.p99)))}`,
        ],
        ['POST errors (non-202)', String(median(posts.map((p) => p.errors)))],
      ],
    );
    out(`\n${table}\n`);
    const results = join(process.cwd(), 'tools', 'bench', 'GATEWAY-RESULTS.md');
    writeFileSync(
      results,
      `# Gateway benchmark\n\nLast run: ${new Date().toISOString()} (\`npm run bench:gateway\`).\n\nMachine: ${m.cpu}, ${m.cores} cores, ${m.memory}; Node ${m.node}, ${m.os}. The client (this process) and every service share the machine.\n\n${table}\n\n- SSE: ${SUBSCRIBERS} subscribers spread over ${RUNS} live runs; ${EVENTS} events per run written straight to the runs' Redis Streams ${EVENT_GAP_MS} ms apart, each carrying its write time; the delay is measured at the client.\n- Memory: the gateway's RSS after the subscribers connected minus before, divided by their number.\n- POST: ${POST_CONNECTIONS} keep-alive connections for ${POST_SECONDS} s each round; the orchestrator is stopped during this part so runs stay queued and the number is the gateway's (insert, publish, queued event).\n`,
    );
  } finally {
    await stack.stop();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`gateway benchmark failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
