import ExcelJS from 'exceljs';
import pdfParse from 'pdf-parse/lib/pdf-parse.js';
import { componentIdOfNode } from '@switchyard/contracts';
import { TestStack, waitFor } from '@switchyard/testing';
import { ragflowEventsOf } from './graph-fixtures';

// Files in, files out: a file uploaded through POST /v1/files is a graph run's Begin input,
// ExcelProcessor reads and merges spreadsheets, writes one back, DocGenerator writes a document;
// the made files are the tenant's files, fetched over HTTP, and a Message offers them as downloads.

const ADMIN = 'graph-files-admin-token';
let stack: TestStack;
let tenant: { id: string; key: string };
let other: { id: string; key: string };

beforeAll(async () => {
  stack = await TestStack.start({
    script: 'apps/planner/test/fixtures/graph.script.json',
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN },
  });
  tenant = await stack.newTenant('graph-files', ADMIN);
  other = await stack.newTenant('graph-files-other', ADMIN);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const as = (t: { key: string }) => ({ Authorization: `Bearer ${t.key}` });

async function upload(t: { key: string }, name: string, content: Buffer, type: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)], { type }), name);
  const res = await fetch(`${stack.gatewayUrl}/v1/files`, { method: 'POST', headers: as(t), body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function download(t: { key: string }, id: string) {
  const res = await fetch(`${stack.gatewayUrl}/v1/files/${id}/content`, { headers: as(t) });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function workbook(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const s = book.addWorksheet(name);
    rows.forEach((r) => s.addRow(r));
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

const component = (
  name: string,
  params: Record<string, unknown>,
  downstream: string[],
  upstream: string[],
) => ({
  obj: { component_name: name, params },
  downstream,
  upstream,
});

async function createAgent(name: string, dsl: unknown) {
  return stack.api('POST', '/v1/agents', { name, kind: 'graph', dsl }, as(tenant));
}

async function runToEnd(agentId: string, inputs: Record<string, unknown>) {
  const res = await stack.api(
    'POST',
    '/v1/runs',
    { agent_id: agentId, input: { prompt: 'go', inputs } },
    as(tenant),
  );
  expect(res.status).toBe(202);
  const runId = res.body.run_id as string;
  const status = async () => (await stack.api('GET', `/v1/runs/${runId}`, undefined, as(tenant))).body;
  await waitFor(
    'the run to end',
    async () => ['succeeded', 'failed', 'cancelled'].includes((await status()).status),
    60_000,
  );
  const actions = (await stack.api('GET', `/v1/runs/${runId}/actions`, undefined, as(tenant))).body
    .actions as {
    node: string;
    result: { outputs: Record<string, unknown> };
  }[];
  const outputsOf = (id: string) =>
    actions.find((a) => componentIdOfNode(a.node) === id)?.result.outputs ?? {};
  return { runId, run: await status(), outputsOf };
}

const REPORT_CANVAS = {
  components: {
    begin: component(
      'Begin',
      { inputs: { sheet: { type: 'file', name: 'Sheet' } } },
      ['ExcelProcessor:Read'],
      [],
    ),
    'ExcelProcessor:Read': component(
      'ExcelProcessor',
      { operation: 'read', input_files: ['begin@sheet'] },
      ['ExcelProcessor:Out'],
      ['begin'],
    ),
    'ExcelProcessor:Out': component(
      'ExcelProcessor',
      {
        operation: 'output',
        transform_data: 'ExcelProcessor:Read@data',
        output_format: 'csv',
        output_filename: 'copy',
      },
      ['DocGenerator:Doc'],
      ['ExcelProcessor:Read'],
    ),
    'DocGenerator:Doc': component(
      'DocGenerator',
      {
        output_format: 'pdf',
        filename: 'Q1 report.final',
        header_text: 'ACME',
        content: '# Sales\n\n{ExcelProcessor:Read@summary}\n\n{ExcelProcessor:Read@markdown}',
      },
      ['Message:Show'],
      ['ExcelProcessor:Out'],
    ),
    'Message:Show': component(
      'Message',
      { content: ['{ExcelProcessor:Read@summary}{DocGenerator:Doc@download}\n{ExcelProcessor:Out@summary}'] },
      [],
      ['DocGenerator:Doc'],
    ),
  },
  globals: {},
};

describe('graph agents: files in, files out', () => {
  let sales: Buffer;
  let salesId: string;

  beforeAll(async () => {
    sales = await workbook({
      Sales: [
        ['region', 'units', 'price'],
        ['north', 3, 2.5],
        ['south', 5, 1.25],
      ],
    });
  });

  it('POST /v1/files keeps an upload for its tenant only: metadata, the same bytes back, 404 elsewhere, delete', async () => {
    const up = await upload(
      tenant,
      'sales.xlsx',
      sales,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ name: 'sales.xlsx', size: sales.length, run_id: null });
    salesId = up.body['id'] as string;
    expect((await stack.api('GET', `/v1/files/${salesId}`, undefined, as(tenant))).body).toEqual(up.body);
    const { res, bytes } = await download(tenant, salesId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(res.headers.get('content-disposition')).toContain('attachment; filename="sales.xlsx"');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(bytes.equals(sales)).toBe(true);
    // Another tenant sees nothing of it.
    expect((await stack.api('GET', `/v1/files/${salesId}`, undefined, as(other))).status).toBe(404);
    expect((await download(other, salesId)).res.status).toBe(404);
    expect((await stack.api('DELETE', `/v1/files/${salesId}`, undefined, as(other))).status).toBe(404);
    // A scratch upload is deleted; the file is gone.
    const scratch = await upload(tenant, 'scratch.txt', Buffer.from('x'), 'text/plain');
    expect((await stack.api('DELETE', `/v1/files/${scratch.body['id']}`, undefined, as(tenant))).status).toBe(
      204,
    );
    expect((await stack.api('GET', `/v1/files/${scratch.body['id']}`, undefined, as(tenant))).status).toBe(
      404,
    );
  });

  it('bad uploads get their error: no file, JSON instead of multipart, a file past 20 MiB', async () => {
    const empty = await fetch(`${stack.gatewayUrl}/v1/files`, {
      method: 'POST',
      headers: as(tenant),
      body: new FormData(),
    });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toContain('"file"');
    const json = await stack.api('POST', '/v1/files', { name: 'x' }, as(tenant));
    expect(json.status).toBe(400);
    expect(json.body.error.message).toContain('multipart/form-data');
    const big = await upload(
      tenant,
      'big.bin',
      Buffer.alloc(20 * 1024 * 1024 + 1),
      'application/octet-stream',
    );
    expect(big.status).toBe(413);
  });

  it('an uploaded sheet is read, written back as CSV and reported as a PDF the Message offers as a download', async () => {
    const created = await createAgent('excel-report', REPORT_CANVAS);
    expect(created.status).toBe(201);
    const { runId, run, outputsOf } = await runToEnd(created.body.id as string, {
      sheet: { id: salesId, name: 'sales.xlsx' },
    });
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');

    const read = outputsOf('ExcelProcessor:Read');
    expect(read['data']).toEqual({
      'sales.xlsx': [
        { region: 'north', units: 3, price: 2.5 },
        { region: 'south', units: 5, price: 1.25 },
      ],
    });
    expect(read['summary']).toBe('**sales.xlsx**: 2 rows, 3 columns (region, units, price)');
    expect(read['markdown']).toBe(
      [
        '### sales.xlsx',
        '',
        '| region   |   units |   price |',
        '|:---------|--------:|--------:|',
        '| north    |       3 |    2.5  |',
        '| south    |       5 |    1.25 |',
        '',
      ].join('\n'),
    );

    // ExcelProcessor `output`: a CSV of the data, a file of the run.
    const out = outputsOf('ExcelProcessor:Out');
    const attachment = out['attachment'] as { doc_id: string; format: string; file_name: string };
    expect(attachment).toMatchObject({ format: 'csv', file_name: 'copy.csv' });
    expect(out['summary']).toBe('Generated copy.csv with 1 sheet(s), 2 total rows');
    const csv = await download(tenant, attachment.doc_id);
    expect(csv.res.headers.get('content-type')).toContain('text/csv');
    expect(csv.bytes.toString()).toBe('region,units,price\nnorth,3,2.5\nsouth,5,1.25\n');

    // DocGenerator: a PDF named as asked, its text the rendered content.
    const doc = outputsOf('DocGenerator:Doc');
    expect(doc).toMatchObject({ filename: 'Q1 report.pdf', mime_type: 'application/pdf' });
    const pdf = await download(tenant, doc['doc_id'] as string);
    expect(pdf.res.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.bytes.length).toBe(doc['size']);
    const text = ((await pdfParse(new Uint8Array(pdf.bytes))) as { text: string }).text;
    for (const part of ['Sales', '2 rows, 3 columns', 'north', '1.25', 'ACME', 'Page 1', 'Generated: ']) {
      expect(text).toContain(part);
    }

    // The Message shows the summaries; the document is a download, not text.
    expect(run.output.answer).toBe(
      '**sales.xlsx**: 2 rows, 3 columns (region, units, price)\nGenerated copy.csv with 1 sheet(s), 2 total rows',
    );
    const downloads = outputsOf('Message:Show')['downloads'] as Record<string, unknown>[];
    expect(downloads).toEqual([
      {
        doc_id: doc['doc_id'],
        filename: 'Q1 report.pdf',
        mime_type: 'application/pdf',
        size: doc['size'],
        url: `/v1/files/${doc['doc_id']}/content`,
      },
    ]);
    // RAGFlow's stream carries them on the Message's message_end.
    const events = await ragflowEventsOf(stack, runId, tenant.key);
    expect(events.find((e) => e.event === 'message_end')).toMatchObject({ downloads });

    // The run's files, listed; another tenant cannot fetch them.
    const listed = (await stack.api('GET', `/v1/files?run_id=${runId}`, undefined, as(tenant))).body
      .files as {
      id: string;
      name: string;
    }[];
    expect(listed.map((f) => f.name).sort()).toEqual(['Q1 report.pdf', 'copy.csv']);
    expect((await download(other, doc['doc_id'] as string)).res.status).toBe(404);
  });

  it('merge: two CSV uploads outer-joined on a column; concat by default; docx and html documents', async () => {
    const a = await upload(tenant, 'a.csv', Buffer.from('id,name\n1,apple\n2,kiwi\n'), 'text/csv');
    const b = await upload(tenant, 'b.csv', Buffer.from('id,stock\n2,7\n3,9\n'), 'text/csv');
    const canvas = (strategy: string, format: string) => ({
      components: {
        begin: component(
          'Begin',
          { inputs: { a: { type: 'file' }, b: { type: 'file' } } },
          ['ExcelProcessor:Merge'],
          [],
        ),
        'ExcelProcessor:Merge': component(
          'ExcelProcessor',
          {
            operation: 'merge',
            input_files: ['begin@a', 'begin@b'],
            merge_strategy: strategy,
            join_on: 'id',
          },
          ['DocGenerator:Doc'],
          ['begin'],
        ),
        'DocGenerator:Doc': component(
          'DocGenerator',
          { output_format: format, add_timestamp: false, content: '{ExcelProcessor:Merge@markdown}' },
          ['Message:Show'],
          ['ExcelProcessor:Merge'],
        ),
        'Message:Show': component(
          'Message',
          { content: ['{ExcelProcessor:Merge@summary}'] },
          [],
          ['DocGenerator:Doc'],
        ),
      },
      globals: {},
    });
    const inputs = { a: { id: a.body['id'] }, b: [{ id: b.body['id'], name: 'b.csv' }] };

    const join = await createAgent('excel-join', canvas('join', 'html'));
    const joined = await runToEnd(join.body.id as string, inputs);
    expect(joined.run.error).toBeNull();
    expect(joined.outputsOf('ExcelProcessor:Merge')['data']).toEqual({
      merged: [
        { id: 1, name: 'apple', stock: null },
        { id: 2, name: 'kiwi', stock: 7 },
        { id: 3, name: null, stock: 9 },
      ],
    });
    expect(joined.run.output.answer).toBe('Merged 2 sources into 3 rows, 3 columns');
    const html = joined.outputsOf('DocGenerator:Doc');
    expect(html['filename']).toMatch(/^document_\d{8}_\d{6}_[0-9a-f]{8}\.html$/);
    const page = (await download(tenant, html['doc_id'] as string)).bytes.toString();
    expect(page).toContain('<table>');
    expect(page).toContain('>kiwi</td>');

    const concat = await createAgent('excel-concat', canvas('concat', 'docx'));
    const stacked = await runToEnd(concat.body.id as string, inputs);
    expect(stacked.run.output.answer).toBe('Merged 2 sources into 4 rows, 3 columns');
    const docx = await download(tenant, stacked.outputsOf('DocGenerator:Doc')['doc_id'] as string);
    expect(docx.res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(docx.bytes.subarray(0, 2).toString()).toBe('PK');
  });

  it('transform turns a run input into tables; output writes them as an .xlsx with a sheet per list', async () => {
    const created = await createAgent('excel-transform', {
      components: {
        begin: component('Begin', { inputs: { rows: { type: 'object' } } }, ['ExcelProcessor:T'], []),
        'ExcelProcessor:T': component(
          'ExcelProcessor',
          { operation: 'transform', transform_data: 'begin@rows' },
          ['ExcelProcessor:Out'],
          ['begin'],
        ),
        'ExcelProcessor:Out': component(
          'ExcelProcessor',
          { operation: 'output', transform_data: 'begin@rows', output_filename: 'book' },
          ['Message:Show'],
          ['ExcelProcessor:T'],
        ),
        'Message:Show': component(
          'Message',
          { content: ['{ExcelProcessor:T@markdown}\n{ExcelProcessor:Out@summary}'] },
          [],
          ['ExcelProcessor:Out'],
        ),
      },
      globals: {},
    });
    expect(created.status).toBe(201);
    const rows = { fruit: [{ name: 'fig', n: 2 }, { name: 'kiwi' }], veg: [{ name: 'leek', n: 1 }] };
    const { run, outputsOf } = await runToEnd(created.body.id as string, { rows: { value: rows } });
    expect(run.error).toBeNull();
    expect(outputsOf('ExcelProcessor:T')['data']).toEqual(rows);
    expect(run.output.answer).toBe(
      [
        '### fruit',
        '',
        '| name   |   n |',
        '|:-------|----:|',
        '| fig    |   2 |',
        '| kiwi   | nan |',
        '',
        '### veg',
        '',
        '| name   |   n |',
        '|:-------|----:|',
        '| leek   |   1 |',
        'Generated book.xlsx with 2 sheet(s), 3 total rows',
      ].join('\n'),
    );
    const book = new ExcelJS.Workbook();
    const { bytes } = await download(
      tenant,
      (outputsOf('ExcelProcessor:Out')['attachment'] as { doc_id: string }).doc_id,
    );
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(book.worksheets.map((w) => w.name)).toEqual(['fruit', 'veg']);
    const sheetRows = (name: string) =>
      (book.getWorksheet(name)!.getSheetValues() as unknown[][]).filter(Boolean).map((r) => r.slice(1));
    expect(sheetRows('fruit')).toEqual([['name', 'n'], ['fig', 2], ['kiwi']]);
    expect(sheetRows('veg')).toEqual([
      ['name', 'n'],
      ['leek', 1],
    ]);
  });

  it("a file id the run's tenant does not have fails the run naming it; nothing is read", async () => {
    const foreign = await upload(other, 'theirs.csv', Buffer.from('a\n1\n'), 'text/csv');
    const created = await createAgent('excel-foreign', REPORT_CANVAS);
    const { run } = await runToEnd(created.body.id as string, { sheet: { id: foreign.body['id'] } });
    expect(run.status).toBe('failed');
    expect(run.error.message).toContain(`file "${foreign.body['id']}" not found`);
    expect(run.error.message).toContain('ExcelProcessor:Read');
  });

  it('a sheet that is not one fails the run naming the file', async () => {
    const junk = await upload(tenant, 'junk.xlsx', Buffer.from('not a workbook'), 'application/octet-stream');
    const created = await createAgent('excel-junk', REPORT_CANVAS);
    const { run } = await runToEnd(created.body.id as string, { sheet: { id: junk.body['id'] } });
    expect(run.status).toBe('failed');
    expect(run.error.message).toContain('"junk.xlsx" is not a readable .xlsx workbook');
  });

  it('bad DocGenerator and ExcelProcessor params are refused on save, naming component and field', async () => {
    const bad = (params: Record<string, unknown>, name = 'DocGenerator') => ({
      components: {
        begin: component('Begin', {}, ['X:1'], []),
        'X:1': component(name, params, [], ['begin']),
      },
      globals: {},
    });
    for (const [dsl, field] of [
      [bad({ content: '' }), 'content'],
      [bad({ content: 'x', output_format: 'rtf' }), 'output_format'],
      [bad({ content: 'x', font_size: 10 }), 'font_size'],
      [bad({ operation: 'pivot' }, 'ExcelProcessor'), 'operation'],
      [bad({ output_format: 'ods' }, 'ExcelProcessor'), 'output_format'],
    ] as const) {
      const res = await createAgent('bad-files', dsl);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: expect.stringContaining(field) })]),
      );
      expect(JSON.stringify(res.body.error)).toContain('X:1');
    }
  });
});
