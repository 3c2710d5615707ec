import { S3Server, TestStack, waitFor } from '@switchyard/testing';

// The tenant's files in an object store (SWITCHYARD_FILE_STORE=aws:<bucket>/<prefix>, an
// S3-compatible server on loopback): an upload's bytes are an object (the row only names it), a
// default agent's run reads it by `file_id`, a graph run's ExcelProcessor reads it and writes its
// own file as an object too; deleting the file — or the thread whose run made one — deletes the
// object (a trigger records every row that goes; the orchestrator's sweep deletes the objects).

const BUCKET = 'tenant-files';
let s3: S3Server;
let stack: TestStack;
let other: { id: string; key: string };
const ADMIN = 'file-objects-admin';

beforeAll(async () => {
  s3 = await S3Server.start();
  await s3.createBucket(BUCKET);
  stack = await TestStack.start({
    script: 'apps/gateway/test/fixtures/skeleton.script.json',
    env: {
      SWITCHYARD_ADMIN_TOKEN: ADMIN,
      SWITCHYARD_OBJECT_STORES: 'aws',
      ...s3.env('aws'),
      SWITCHYARD_FILE_STORE: `aws:${BUCKET}/files`,
    },
  });
  other = await stack.newTenant('file-objects-other', ADMIN);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await s3?.stop();
});

async function upload(name: string, content: Buffer, type: string, key = stack.key) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)], { type }), name);
  const res = await fetch(`${stack.gatewayUrl}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const fileRow = async (id: string) =>
  (
    await stack.sql<{ content: Buffer | null; object_key: string | null }>(
      'SELECT content, object_key FROM files WHERE id = $1',
      [id],
    )
  )[0];

/** The object a row names (`aws:<bucket>/<key>`), as the store has it. */
const objectOf = (objectKey: string) => s3.get(BUCKET, objectKey.slice(`aws:${BUCKET}/`.length));

describe('files in an object store', () => {
  let notesId: string;
  const NOTES = Buffer.from('# Field notes\n\nThe hangar door sticks in the cold.\n');

  it('an upload is an object; the row names it; the bytes come back over HTTP', async () => {
    const up = await upload('notes.md', NOTES, 'text/markdown');
    expect(up.status).toBe(201);
    notesId = up.body['id'] as string;
    const row = await fileRow(notesId);
    expect(row.content).toBeNull();
    // Named by tenant and a fresh id, under the configured prefix.
    const [{ tenant_id }] = await stack.sql<{ tenant_id: string }>(
      'SELECT tenant_id FROM files WHERE id = $1',
      [notesId],
    );
    expect(row.object_key).toMatch(new RegExp(`^aws:${BUCKET}/files/${tenant_id}/[0-9a-f-]{36}$`));
    expect((await objectOf(row.object_key!))?.equals(NOTES)).toBe(true);
    const res = await fetch(`${stack.gatewayUrl}/v1/files/${notesId}/content`, {
      headers: { Authorization: `Bearer ${stack.key}` },
    });
    expect(Buffer.from(await res.arrayBuffer()).equals(NOTES)).toBe(true);
  });

  it("a default agent's run reads an upload by file_id; another tenant's id or a mixed entry is a 400", async () => {
    const res = await stack.api('POST', '/v1/runs', {
      input: {
        prompt: 'what is 1+1?',
        files: [{ name: 'notes.md', type: 'text/markdown', file_id: notesId }],
      },
    });
    expect(res.status).toBe(202);
    const run = await stack.ended(res.body.run_id as string);
    expect(run.status).toBe('succeeded');
    const state = await stack.api('GET', `/v1/threads/${run.thread_id}/state`);
    expect(state.body.preprocessed_files.documents['notes.md']).toMatchObject({
      text: NOTES.toString('utf8'),
    });

    const theirs = await stack.api(
      'POST',
      '/v1/runs',
      { input: { prompt: 'hi', files: [{ name: 'n.md', type: 'text/markdown', file_id: notesId }] } },
      { Authorization: `Bearer ${other.key}` },
    );
    expect(theirs.status).toBe(400);
    expect(theirs.body.error.details).toEqual([
      { field: 'input.files.0.file_id', message: expect.stringContaining('no file') },
    ]);
    const mixed = await stack.api('POST', '/v1/runs', {
      input: {
        prompt: 'hi',
        files: [{ name: 'n.md', type: 'text/markdown', file_id: notesId, local_path: 'n.md' }],
      },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.details[0].field).toBe('input.files.0');
  });

  it("a graph run reads the upload from the store and writes its own file there; the thread's deletion deletes it", async () => {
    const csv = await upload('visits.csv', Buffer.from('city,visits\nOslo,3\nLima,5\n'), 'text/csv');
    const agent = await stack.api('POST', '/v1/agents', {
      name: 'csv-copy',
      kind: 'graph',
      dsl: {
        components: {
          begin: {
            obj: { component_name: 'Begin', params: { inputs: { sheet: { type: 'file', name: 'Sheet' } } } },
            downstream: ['ExcelProcessor:Read'],
            upstream: [],
          },
          'ExcelProcessor:Read': {
            obj: {
              component_name: 'ExcelProcessor',
              params: { operation: 'read', input_files: ['begin@sheet'] },
            },
            downstream: ['ExcelProcessor:Out'],
            upstream: ['begin'],
          },
          'ExcelProcessor:Out': {
            obj: {
              component_name: 'ExcelProcessor',
              params: {
                operation: 'output',
                transform_data: 'ExcelProcessor:Read@data',
                output_format: 'csv',
                output_filename: 'copy',
              },
            },
            downstream: ['Message:Done'],
            upstream: ['ExcelProcessor:Read'],
          },
          'Message:Done': {
            obj: { component_name: 'Message', params: { content: ['{ExcelProcessor:Out@summary}'] } },
            downstream: [],
            upstream: ['ExcelProcessor:Out'],
          },
        },
      },
    });
    expect(agent.status).toBe(201);
    const res = await stack.api('POST', '/v1/runs', {
      agent_id: agent.body.id,
      input: { prompt: 'go', inputs: { sheet: { id: csv.body['id'], name: 'visits.csv' } } },
    });
    expect(res.status).toBe(202);
    const run = await stack.ended(res.body.run_id as string);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');

    const made = await stack.sql<{ id: string; object_key: string | null; content: Buffer | null }>(
      'SELECT id, object_key, content FROM files WHERE run_id = $1',
      [run.run_id],
    );
    expect(made).toHaveLength(1);
    expect(made[0].content).toBeNull();
    const bytes = await objectOf(made[0].object_key!);
    expect(bytes?.toString('utf8')).toContain('Oslo');

    const deleted = await stack.api('DELETE', `/v1/threads/${run.thread_id}`);
    expect(deleted.status).toBe(200);
    // The sweep deletes the object, then its row in file_objects_gone: wait for both.
    await waitFor(
      'the made file’s object to be deleted and its record of it cleared',
      async () =>
        (await objectOf(made[0].object_key!)) === null &&
        (await stack.sql('SELECT 1 FROM file_objects_gone')).length === 0,
    );
    expect(await objectOf(made[0].object_key!)).toBeNull();
    expect(await stack.sql('SELECT 1 FROM file_objects_gone')).toEqual([]);
    // The upload the run read is the tenant's, not the run's: it stays.
    expect(await objectOf((await fileRow(csv.body['id'] as string)).object_key!)).not.toBeNull();
  });

  it('deleting a file deletes its object at once', async () => {
    const key = (await fileRow(notesId)).object_key!;
    expect((await stack.api('DELETE', `/v1/files/${notesId}`)).status).toBe(204);
    expect(await objectOf(key)).toBeNull();
    expect(await stack.sql('SELECT 1 FROM file_objects_gone WHERE object_key = $1', [key])).toEqual([]);
  });
});
