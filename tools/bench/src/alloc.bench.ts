// Where one service's allocations come from, per pure-loop step: V8's sampling heap profiler,
// driven over the service's inspector, counting what scavenges collect too (`--heap-prof` keeps
// only what is alive at the end, which hides a step's garbage — the cost that sets how often the
// young generation is collected). Prints the top allocation sites in KB per step.
// Usage: npm run bench:alloc. Environment: BENCH_ALLOC_SERVICE (run-orchestrator; or bench-nodes,
// gateway), BENCH_ALLOC_SURVIVORS=1 (only what outlived a scavenge: the promoted, old-space part),
// BENCH_LOOP_STEPS (150), BENCH_REPS (6: measured runs), BENCH_TOP (30).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { TestStack } from '@switchyard/testing';
import { SwitchyardLoop } from './runtime-loop.bench';
import { markdownTable } from './stats';

const log = (msg: string) => process.stderr.write(`[bench:alloc] ${msg}\n`);
const INSPECT = ['--inspect=127.0.0.1:0'];
/** Unmeasured 150-step runs first: the process compiled, its pools and caches filled. */
const WARMUP_RUNS = 12;

/** A node of V8's sampling heap profile (Chrome DevTools Protocol, HeapProfiler). */
interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** The smallest CDP client: numbered requests over the inspector's WebSocket. */
class Inspector {
  private next = 0;
  private readonly pending = new Map<
    number,
    (m: { result?: unknown; error?: { message: string } }) => void
  >();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      if (m.id !== undefined) {
        this.pending.get(m.id)?.(m);
        this.pending.delete(m.id);
      }
    });
  }

  static async connect(url: string): Promise<Inspector> {
    const ws = new WebSocket(url, { maxPayload: 1 << 30 });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Inspector(ws);
  }

  async send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.next;
    const reply = await new Promise<{ result?: unknown; error?: { message: string } }>((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
    if (reply.error) {
      throw new Error(`${method}: ${reply.error.message}`);
    }
    return reply.result as T;
  }

  close(): void {
    this.ws.close();
  }
}

/** The inspector URL a service printed when it started (the last one: a restart prints anew). */
function inspectorUrl(logFile: string): string {
  const found = [...readFileSync(logFile, 'utf8').matchAll(/Debugger listening on (ws:\/\/\S+)/g)].pop();
  if (!found) {
    throw new Error(`no inspector URL in ${logFile}`);
  }
  return found[1];
}

/** Self bytes by allocation site (`function file:line`), over the whole profile. */
function bySite(head: SamplingNode): Map<string, number> {
  const sites = new Map<string, number>();
  const walk = (n: SamplingNode) => {
    if (n.selfSize > 0) {
      const f = n.callFrame;
      const file = f.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, '');
      const site = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
      sites.set(site, (sites.get(site) ?? 0) + n.selfSize);
    }
    n.children.forEach(walk);
  };
  walk(head);
  return sites;
}

async function main(): Promise<void> {
  const service = process.env['BENCH_ALLOC_SERVICE'] ?? 'run-orchestrator';
  const survivors = process.env['BENCH_ALLOC_SURVIVORS'] === '1';
  const steps = Number(process.env['BENCH_LOOP_STEPS'] ?? 150);
  const reps = Number(process.env['BENCH_REPS'] ?? 6);
  const top = Number(process.env['BENCH_TOP'] ?? 30);
  for (const [name, v] of Object.entries({ BENCH_LOOP_STEPS: steps, BENCH_REPS: reps, BENCH_TOP: top })) {
    if (!Number.isInteger(v) || v < 1) {
      throw new Error(`${name} must be a positive integer`);
    }
  }
  log('starting the stack, every service with its inspector on a free port');
  const stack = await TestStack.start({
    script: 'tools/bench/fixtures/bench.script.json',
    env: { SWITCHYARD_DEFAULT_MAX_STEPS: '1000', LOG_LEVEL: 'warn' },
    nodeArgs: INSPECT,
  });
  let loop: SwitchyardLoop | undefined;
  try {
    loop = await SwitchyardLoop.start(stack, INSPECT);
    log(`${WARMUP_RUNS} unmeasured runs of 150 steps`);
    for (let i = 0; i < WARMUP_RUNS; i++) {
      await loop.run(150);
    }
    const inspector = await Inspector.connect(inspectorUrl(join(stack.dir, `${service}.log`)));
    let total = 0;
    let profile: { head: SamplingNode };
    try {
      await inspector.send('HeapProfiler.enable');
      await inspector.send('HeapProfiler.startSampling', {
        samplingInterval: 2048,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !survivors,
      });
      log(`${reps} measured runs of ${steps} steps, ${service} sampled`);
      for (let i = 0; i < reps; i++) {
        total += (await loop.run(steps)).steps;
      }
      ({ profile } = await inspector.send<{ profile: { head: SamplingNode } }>('HeapProfiler.stopSampling'));
    } finally {
      inspector.close();
    }
    const sites = [...bySite(profile.head)].sort((a, b) => b[1] - a[1]);
    const sum = sites.reduce((a, [, bytes]) => a + bytes, 0);
    const kb = (bytes: number) => `${(bytes / total / 1024).toFixed(2)} KB`;
    process.stdout.write(
      `\n${service}: ${kb(sum)} ${survivors ? 'outlived a scavenge' : 'allocated'} per step (${total} steps sampled)\n\n`,
    );
    process.stdout.write(
      `${markdownTable(
        ['allocation site (function file:line)', 'per step', 'share'],
        sites
          .slice(0, top)
          .map(([site, bytes]) => [site, kb(bytes), `${((100 * bytes) / sum).toFixed(1)} %`]),
      )}\n`,
    );
  } finally {
    await loop?.stop();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
