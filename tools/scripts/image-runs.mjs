#!/usr/bin/env node
// The runs `fresh-check.sh image` makes through the gateway's HTTP API once the image's services
// are up: a default-agent run (the scripted model and the calculator: "what is 2+3*4?" → 14) and a
// graph-agent run of RAGFlow's all.json canvas down its `code` branch (two forms answered, then a
// CodeExec in the sandbox), whose answer must be RAGFlow's own (libs/graph/fixtures/expected).
// Plain Node.js 20, no packages: it runs from a clone where nothing is installed.
//
//   GATEWAY_URL=http://127.0.0.1:8080 API_KEY=… node tools/scripts/image-runs.mjs <repo dir>
//
// Prints one line per check ("ok …" / "FAILED …"), then "python: …" (what a Python CodeExec does
// under the same user, for information), and exits 1 if a check failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = process.argv[2] ?? '.';
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080';
const key = process.env.API_KEY ?? '';
const RUN_DEADLINE_MS = Number(process.env.RUN_DEADLINE_MS ?? 180_000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(method, path, body) {
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: res.status, body: json };
}

async function must(method, path, body, expected) {
  const res = await api(method, path, body);
  if (res.status !== expected) {
    throw new Error(
      `${method} ${path}: HTTP ${res.status} (expected ${expected}): ${JSON.stringify(res.body)}`,
    );
  }
  return res.body;
}

/** Polls the run until `done(run, actions)` holds; the run's last state is in the error otherwise. */
async function until(runId, what, done) {
  const deadline = Date.now() + RUN_DEADLINE_MS;
  let run;
  for (;;) {
    run = await must('GET', `/v1/runs/${runId}`, undefined, 200);
    const actions = (await must('GET', `/v1/runs/${runId}/actions`, undefined, 200)).actions;
    if (await done(run, actions)) {
      return { run, actions };
    }
    if (['succeeded', 'failed', 'cancelled'].includes(run.status) || Date.now() > deadline) {
      throw new Error(
        `run ${runId} did not reach ${what}: ${run.status} ${JSON.stringify(run.error ?? null)}`,
      );
    }
    await sleep(300);
  }
}
const ended = (r) => ['succeeded', 'failed', 'cancelled'].includes(r.status);

/**
 * Starts a run, answers each form in turn, awaits its end. A form is a paused action (a
 * component's `result.paused`) with the run waiting: the next form is one more paused action than
 * were answered (the run still shows `waiting` for the last one until its answer is applied).
 */
async function runToEnd(body, answers = []) {
  const { run_id: runId } = await must('POST', '/v1/runs', body, 202);
  const paused = (actions) => actions.filter((a) => a.result?.paused).length;
  let answered = 0;
  for (const input of answers) {
    await until(runId, `form ${answered + 1}`, (r, a) => r.status === 'waiting' && paused(a) > answered);
    await must('POST', `/v1/runs/${runId}/resume`, { input }, 202);
    answered++;
  }
  return (await until(runId, 'its end', ended)).run;
}

/** RAGFlow's all.json as graph-code.e2e-spec.ts runs it; `javascript` swaps the Python script for the same in JavaScript. */
function allJson(lang) {
  const fixtures = join(repo, 'libs/graph/fixtures');
  const dsl = JSON.parse(readFileSync(join(fixtures, 'ragflow/all.json'), 'utf8'));
  for (const cond of dsl.components['Switch:Route'].obj.params.conditions ?? []) {
    cond.to = cond.to.filter((id) => id !== 'CodeExec:FunnyBroomsShare');
  }
  if (lang === 'javascript') {
    Object.assign(dsl.components['CodeExec:Double'].obj.params, {
      lang: 'javascript',
      script:
        'function main(args) {\n  const n = parseInt(args.x, 10);\n  return Number.isNaN(n) ? 0 : n * 2;\n}\n',
    });
  }
  const golden = JSON.parse(readFileSync(join(fixtures, 'expected/all.code.json'), 'utf8'));
  return { dsl, golden };
}

async function graphRun(lang) {
  const { dsl, golden } = allJson(lang);
  const agent = await must('POST', '/v1/agents', { name: `image-check-${lang}`, kind: 'graph', dsl }, 201);
  const turns = golden.inputs.turns;
  const run = await runToEnd(
    { agent_id: agent.id, input: { prompt: turns[0].query } },
    turns.slice(1).map((t) => t.resume ?? {}),
  );
  return { run, expected: golden.answer };
}

let failed = 0;
async function check(name, fn) {
  const started = Date.now();
  try {
    const detail = await fn();
    console.log(`ok ${name} (${((Date.now() - started) / 1000).toFixed(1)} s): ${detail}`);
  } catch (err) {
    failed++;
    console.log(`FAILED ${name}: ${err.message}`);
  }
}

await check('default agent', async () => {
  const run = await runToEnd({ input: { prompt: 'what is 2+3*4?' } });
  if (run.status !== 'succeeded' || !/\b14\b/.test(run.output?.answer ?? '')) {
    throw new Error(
      `${run.status}, answer ${JSON.stringify(run.output?.answer)}, error ${JSON.stringify(run.error)}`,
    );
  }
  return JSON.stringify(run.output.answer);
});

await check('graph agent with CodeExec (RAGFlow all.json, code branch, JavaScript)', async () => {
  const { run, expected } = await graphRun('javascript');
  if (run.status !== 'succeeded' || run.output?.answer !== expected) {
    throw new Error(
      `${run.status}, answer ${JSON.stringify(run.output?.answer)} (RAGFlow's: ${JSON.stringify(expected)}), error ${JSON.stringify(run.error)}`,
    );
  }
  return JSON.stringify(run.output.answer);
});

// For information: the canvas as RAGFlow has it (Python). Python runs only inside the OS
// confinement (root to enter a network namespace, a writable memory cgroup): not under a non-root
// user in a container, where the run must say so.
try {
  const { run, expected } = await graphRun('python');
  console.log(
    `python: the same canvas with its Python CodeExec: ${run.status}${run.output?.answer === expected ? " (RAGFlow's answer)" : ''}; ${run.error ? `${run.error.code}: ${run.error.message}` : JSON.stringify(run.output?.answer)}`,
  );
} catch (err) {
  console.log(`python: ${err.message}`);
}

process.exit(failed ? 1 : 0);
