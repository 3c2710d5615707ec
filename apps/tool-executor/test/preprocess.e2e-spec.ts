import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Action, ActionSchema } from '@switchyard/contracts';
import { S3Server, TestStack, waitFor } from '@switchyard/testing';
import { minimalPdf } from '@switchyard/knowledge';

// The `preprocess` node end to end: a run posted with files reads them from the tool-executor's
// files root and from an object store (an S3-compatible server on loopback, as the deployment's
// `aws`) in the same step as memory (intake fans out to both), fills preprocessed_files, and a
// file it cannot read is an error of that file only; a file in a store the deployment does not
// read is refused when the run is posted.

let stack: TestStack;
let base: string;
let s3: S3Server;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sy-preprocess-e2e-'));
  const root = join(base, 'files');
  mkdirSync(join(root, 'docs'), { recursive: true });
  writeFileSync(join(base, 'secret.txt'), 'not for the agent');
  writeFileSync(join(root, 'sales.csv'), 'region,amount\n"North, East",120\nSouth,80\n');
  writeFileSync(join(root, 'docs', 'notes.md'), '# Notes\n\nShip on Friday.');
  writeFileSync(join(root, 'report.pdf'), minimalPdf('Quarterly report'));
  writeFileSync(join(root, 'config.json'), JSON.stringify({ mode: 'fast' }));
  symlinkSync(join(base, 'secret.txt'), join(root, 'link.txt'));
  s3 = await S3Server.start();
  await s3.createBucket('run-files');
  await s3.put('run-files', 'q3/cloud.csv', 'city,visits\nOslo,3\n');
  stack = await TestStack.start({
    script: 'apps/tool-executor/test/fixtures/preprocess.script.json',
    env: { SWITCHYARD_FILES_ROOT: root, SWITCHYARD_OBJECT_STORES: 'aws', ...s3.env('aws') },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await s3?.stop();
  if (base) {
    rmSync(base, { recursive: true, force: true });
  }
});

const FILES = [
  { name: 'sales.csv', type: 'text/csv', mapping: { provider: 'local', path: 'sales.csv' } },
  { name: 'notes.md', type: 'text/markdown', local_path: 'docs/notes.md' },
  { name: 'report.pdf', type: 'application/pdf', mapping: { provider: 'local', path: 'report.pdf' } },
  { name: 'config.json', type: 'application/json', mapping: { provider: 'local', path: 'config.json' } },
  { name: 'secret.txt', type: 'text/plain', mapping: { provider: 'local', path: '../secret.txt' } },
  { name: 'link.txt', type: 'text/plain', mapping: { provider: 'local', path: 'link.txt' } },
  { name: 'cloud.csv', type: 'text/csv', mapping: { provider: 'aws', path: 'run-files/q3/cloud.csv' } },
  { name: 'gone.txt', type: 'text/plain', mapping: { provider: 'aws', path: 'run-files/gone.txt' } },
];

describe('preprocess: the files of a run', () => {
  let runId: string;
  let threadId: string;
  let actions: Action[];

  beforeAll(async () => {
    const res = await stack.api('POST', '/v1/runs', {
      input: { prompt: 'Summarize the attached files', files: FILES },
    });
    expect(res.status).toBe(202);
    runId = res.body.run_id;
    let status = '';
    await waitFor('the run to end', async () => {
      const run = await stack.api('GET', `/v1/runs/${runId}`);
      status = run.body.status;
      threadId = run.body.thread_id;
      return ['succeeded', 'failed', 'cancelled'].includes(status);
    });
    expect(status).toBe('succeeded');
    actions = (await stack.api('GET', `/v1/runs/${runId}/actions`)).body.actions;
  }, 90_000);

  it('runs preprocess beside memory, then one planner task', () => {
    const nodes = actions.map((a) => a.node);
    expect(nodes.slice(0, 2)).toEqual(['start', 'intake']);
    expect(actions[1].next).toEqual(['preprocess', 'memory']);
    expect([...nodes.slice(2, 4)].sort()).toEqual(['memory', 'preprocess']);
    expect(nodes.slice(4)).toEqual(['planner', 'output']);
    for (const action of actions) {
      expect(ActionSchema.safeParse(action).success).toBe(true);
    }
  });

  it('answers ["planner"], summarizes the failures and puts documents in its context', () => {
    const pre = actions.find((a) => a.node === 'preprocess') as Action;
    expect(pre.error).toBeUndefined();
    expect(pre.next).toEqual(['planner']);
    expect(pre.summary).toMatch(
      /^Preprocessed 8 file\(s\): 3 document\(s\), 2 table\(s\), 0 other file\(s\); 3 failed/,
    );
    expect(pre.summary).toContain('gone.txt: aws object run-files/gone.txt not found');
    expect(pre.context?.map((c) => [c.type, c.usage_type, String(c.content).split('\n')[0]])).toEqual([
      ['text', 'reference', '[notes.md]'],
      ['text', 'reference', '[report.pdf]'],
      ['text', 'reference', '[config.json]'],
    ]);
  });

  it('fills preprocessed_files in the thread state', async () => {
    const state = await stack.api('GET', `/v1/threads/${threadId}/state`);
    expect(state.status).toBe(200);
    expect(state.body.preprocessed_files).toEqual({
      documents: {
        'notes.md': { text: '# Notes\n\nShip on Friday.', chars: 24, type: 'md' },
        'report.pdf': { text: 'Quarterly report', chars: 16, type: 'pdf', pages: 1 },
        'config.json': { text: '{\n  "mode": "fast"\n}', chars: 20, type: 'json' },
      },
      tables: {
        'sales.csv': {
          columns: ['region', 'amount'],
          rows: [
            ['North, East', '120'],
            ['South', '80'],
          ],
          row_count: 2,
          truncated: false,
        },
        'cloud.csv': { columns: ['city', 'visits'], rows: [['Oslo', '3']], row_count: 1, truncated: false },
      },
      other_files: {
        'secret.txt': { error: 'path "../secret.txt" escapes the files root' },
        'link.txt': { error: 'path "link.txt" escapes the files root (through a symbolic link)' },
        'gone.txt': { error: 'aws object run-files/gone.txt not found' },
      },
    });
    expect(JSON.stringify(state.body)).not.toContain('not for the agent');
  });
});

describe('a file where the deployment does not read', () => {
  it.each([
    [
      'a store not enabled',
      { provider: 'aliyun', path: 'run-files/a.txt' },
      'input.files.0.mapping.provider',
      'object store "aliyun" is not configured on this deployment (SWITCHYARD_OBJECT_STORES: aws)',
    ],
    [
      'a path that is no <bucket>/<key>',
      { provider: 'aws', path: 'run-files' },
      'input.files.0.mapping.path',
      '"run-files" names no object in bucket run-files (the path is <bucket>/<key>)',
    ],
  ])('is refused when the run is posted: %s', async (_, mapping, field, message) => {
    const res = await stack.api('POST', '/v1/runs', {
      input: {
        prompt: 'Summarize the attached files',
        files: [{ name: 'a.txt', type: 'text/plain', mapping }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field, message }]);
  });
});
