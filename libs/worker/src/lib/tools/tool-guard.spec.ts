import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformFileSync } from '@swc/core';

// The guard installs process-wide handlers, so it is exercised in a process of its own: the guard
// and fixtures/tool-guard.child.ts are compiled into the repository's tmp/ (where node_modules is
// found) with the same relative layout, and run there.

const OUT = join(__dirname, '../../../../../tmp', `tool-guard-${process.pid}`);
const CHILD = join(OUT, 'fixtures', 'tool-guard.child.js');

function compile(from: string, to: string): void {
  const { code } = transformFileSync(from, {
    jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  mkdirSync(join(to, '..'), { recursive: true });
  writeFileSync(to, code);
}

compile(join(__dirname, 'tool-guard.ts'), join(OUT, 'tool-guard.js'));
compile(join(__dirname, 'fixtures', 'tool-guard.child.ts'), CHILD);

function runChild(...args: string[]) {
  const res = spawnSync(process.execPath, [CHILD, ...args], { encoding: 'utf8', timeout: 30_000 });
  const outcomes = Object.fromEntries(
    res.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { case: string })
      .map((o) => [o.case, o]),
  );
  return { status: res.status, outcomes, stderr: res.stderr, output: res.stdout + res.stderr };
}

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe('guardToolWork', () => {
  const { status, outcomes, stderr } = runChild();

  it('keeps the process alive through every escaped tool error', () => {
    expect(stderr).not.toMatch(/Unhandled 'error' event/);
    expect(status).toBe(0);
    expect(outcomes['alive']).toEqual({ case: 'alive', ok: true });
  });

  it('fails the tool call with network_error (retryable) for an unlistened socket error', () => {
    expect(outcomes['unlistened socket error']).toMatchObject({
      name: 'ToolCrashError',
      code: 'network_error',
      retryable: true,
      message: 'unlistened socket error failed: connect ENETUNREACH 224.0.0.1:80',
    });
  });

  it('turns the synchronous-lookup crash of the tool-executor into network_error', () => {
    expect(outcomes['synchronous lookup, connect fails synchronously']).toMatchObject({
      code: 'network_error',
      message: expect.stringMatching(/connect ENETUNREACH 224\.0\.0\.1:80/),
    });
  });

  it.each(['throw in a timer', 'unawaited rejection'])('fails %s as tool_crashed (not retried)', (name) => {
    expect(outcomes[name]).toMatchObject({ name: 'ToolCrashError', code: 'tool_crashed', retryable: false });
  });

  it('passes results through, and an error after the result changes nothing', () => {
    expect(outcomes['a result']).toEqual({ case: 'a result', ok: 42 });
    expect(outcomes['an error after the result']).toEqual({
      case: 'an error after the result',
      ok: 'settled first',
    });
  });

  it('still ends the process for an error outside any tool', () => {
    const outside = runChild('outside');
    expect(outside.outcomes['alive']).toBeDefined();
    expect(outside.outcomes['survived the defect']).toBeUndefined();
    expect(outside.status).toBe(1);
    expect(outside.output).toMatch(
      /a defect outside any tool[\s\S]*uncaught error outside any tool: the process exits/,
    );
  });
});
