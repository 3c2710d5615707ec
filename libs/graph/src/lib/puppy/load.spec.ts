import { type GraphException } from '../graph.exception';
import { editorToEngine } from './editor';
import { decideFileType, fileRefs, loadPlan, loadedBlocks, loadedContent } from './load';
import { validateWorkflow } from './parse-workflow';
import { blockViews } from './scheduler';
import { type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

// Expected values are what PuppyEngine's LoadConfigParser and Utils/file_type.py give (run with
// python3 on the archived sources).

const wf = (raw: unknown): PuppyWorkflow => PuppyWorkflowSchema.parse(raw);
const views = (w: PuppyWorkflow) => blockViews(w, { begin: { blocks: {} } });

const loading = (block: Record<string, unknown>, blockType = 'text') =>
  wf({
    blocks: { b: { label: 'b', ...block }, out: { label: 'out', data: {} } },
    edges: {
      l: { type: 'load', data: { block_type: blockType, inputs: { b: 'b' }, outputs: { out: 'out' } } },
    },
  });

describe(loadPlan.name, () => {
  it('loads each item of a looped block as Python str(), and is a loop whenever the block is looped', () => {
    const list = loading({ type: 'structured', data: { content: ['a', { k: 1 }, 2] }, looped: true });
    expect(loadPlan(list, 'l', views(list))).toMatchObject({ loop: true, items: ['a', "{'k': 1}", '2'] });
    const obj = loading({ type: 'structured', data: { content: { x: [1, 'y'], z: null } }, looped: true });
    expect(loadPlan(obj, 'l', views(obj))).toMatchObject({
      loop: true,
      items: ["{'x': [1, 'y']}", "{'z': None}"],
    });
    const text = loading({ data: { content: 'plain' }, looped: true });
    const plan = loadPlan(text, 'l', views(text));
    expect(plan).toMatchObject({ loop: true, items: ['plain'] });
    expect(loadedBlocks(text, 'l', plan, ['plain'])).toEqual({ out: ['plain'] });
    const plain = loading({ type: 'structured', data: { content: { x: 1 } } });
    const p2 = loadPlan(plain, 'l', views(plain));
    expect(p2).toMatchObject({ loop: false, items: [{ x: 1 }] });
    expect(loadedBlocks(plain, 'l', p2, [{ x: 1 }])).toEqual({ out: { x: 1 } });
  });

  it('fails an empty content as validate_content does', () => {
    const w = loading({ data: { content: '' } });
    const plan = loadPlan(w, 'l', views(w));
    expect(() => loadedContent(plan, '')).toThrow('block b: Empty TextLoadStrategy Content');
    expect(() => loadedContent({ ...plan, blockType: 'structured' }, {})).toThrow(
      'Empty StructuredLoadStrategy',
    );
    expect(loadedContent(plan, 'x')).toBe('x');
  });
});

describe(fileRefs.name, () => {
  const w = loading({ type: 'file', data: { content: [] } }, 'file');
  const plan = loadPlan(w, 'l', views(w));

  it('reads a list of entries, a {type: files} wrapper or one Begin-form file, skipping entries without an id', () => {
    expect(
      fileRefs(plan, [
        { id: 'f1', name: 'a.txt' },
        { download_url: 'https://x' },
        { file_id: 'f2', file_type: 'csv' },
      ]),
    ).toEqual([
      { id: 'f1', name: 'a.txt' },
      { id: 'f2', fileType: 'csv' },
    ]);
    expect(fileRefs(plan, { type: 'files', files: [{ file_id: 'f3', mime_type: 'text/plain' }] })).toEqual([
      { id: 'f3', mimeType: 'text/plain' },
    ]);
    expect(fileRefs(plan, { id: 'f4' })).toEqual([{ id: 'f4' }]);
  });

  it('fails content that names no tenant file, naming the block', () => {
    expect(() => fileRefs(plan, [])).toThrow('Empty FileLoadStrategy Content');
    expect(() => fileRefs(plan, 'a.txt')).toThrow('block b: a file block holds tenant files');
    expect(() => fileRefs(plan, [{ local_path: '/tmp/a' }])).toThrow(
      'no entry of the block names a tenant file',
    );
  });
});

describe(decideFileType.name, () => {
  it.each([
    ['', '', 'a.TXT', 'txt'],
    ['PDF', '', 'x.bin', 'pdf'],
    ['docx', 'text/csv', 'x.json', 'csv'],
    ['', 'Text/Markdown', 'x.pdf', 'markdown'],
    ['', 'application/octet-stream', 'notes.markdown', 'markdown'],
    ['', '', 'photo.webp', 'image'],
    ['', '', 'archive.tar.gz', 'application'],
    ['', '', '', 'application'],
    ['', 'text/plain; charset=utf-8', 'r.csv', 'csv'],
    ['text', '', 'r.mdx', 'markdown'],
  ])('decide_file_type(%j, %j, %j) = %j', (type, mime, name, expected) => {
    expect(decideFileType(type, mime, name)).toBe(expected);
  });
});

describe('load edges at save', () => {
  const problems = (edge: Record<string, unknown>, block: Record<string, unknown> = {}) => {
    try {
      validateWorkflow({
        blocks: {
          b: { label: 'b', data: { content: 'x' }, ...block },
          c: { label: 'c', data: {} },
          out: { label: 'out', data: {} },
        },
        edges: {
          l: {
            type: 'load',
            data: { block_type: 'text', inputs: { b: 'b' }, outputs: { out: 'out' }, ...edge },
          },
        },
      });
      return [];
    } catch (err) {
      return (err as GraphException).problems.map((p) => `${p.edge ?? ''}/${p.block ?? ''}:${p.field}`);
    }
  };

  it('accepts text, structured and file loads', () => {
    expect(problems({})).toEqual([]);
    expect(problems({ block_type: 'structured' })).toEqual([]);
    expect(
      problems(
        { block_type: 'file', extra_configs: { file_configs: [], default_parse_config: {} } },
        { type: 'file', data: { content: [{ id: 'f' }] } },
      ),
    ).toEqual([]);
  });

  it('refuses fetching strategies, several inputs, parse options, looped files and PuppyStorage entries', () => {
    expect(problems({ block_type: 'weblink' })).toEqual(['l/:data.block_type']);
    expect(problems({ block_type: 'database' })).toEqual(['l/:data.block_type']);
    expect(problems({ block_type: 'video' })).toEqual(['l/:data.block_type']);
    expect(problems({ inputs: { b: 'b', c: 'c' } })).toEqual(['l/:data.inputs']);
    expect(problems({ extra_configs: { default_parse_config: { auto_formatting: true } } })).toEqual([
      'l/:data.extra_configs.default_parse_config',
    ]);
    expect(problems({ block_type: 'file' }, { type: 'file', looped: true, data: { content: [] } })).toEqual([
      'l/:data.inputs',
    ]);
    expect(
      problems(
        { block_type: 'file' },
        { type: 'file', data: { content: [{ id: 'f' }, { task_id: 'k', download_url: 'https://x' }] } },
      ),
    ).toEqual(['/b:data.content.1']);
  });
});

describe('Load editor node', () => {
  it('converts a Load node as buildLoadNodeJson does, by storage key or download URL', () => {
    const node = (external: boolean) =>
      editorToEngine({
        blocks: [
          {
            id: 'f',
            type: 'file',
            data: {
              label: 'Files',
              content: [
                { fileName: 'a.pdf', fileType: 'pdf', task_id: 'k1', download_url: 'https://x/a' },
                { fileName: 'b.txt', fileType: 'txt', download_url: 'https://x/b' },
              ],
              ...(external ? { external_metadata: { resource_key: 'r' } } : {}),
            },
          },
          { id: 'o', type: 'structured', data: { label: 'Out' } },
          { id: 'ld', type: 'load', data: {} },
        ],
        edges: [
          { source: 'f', target: 'ld' },
          { source: 'ld', target: 'o' },
        ],
      })['edges'];
    const data = (fileConfigs: unknown) => ({
      ld: {
        type: 'load',
        data: {
          block_type: 'file',
          content: 'f',
          extra_configs: { file_configs: fileConfigs },
          inputs: { f: 'Files' },
          outputs: { o: 'Out' },
        },
      },
    });
    expect(node(true)).toEqual(data([{ file_path: 'k1', file_type: 'pdf' }]));
    expect(node(false)).toEqual(
      data([
        { file_path: 'https://x/a', file_type: 'pdf' },
        { file_path: 'https://x/b', file_type: 'txt' },
      ]),
    );
  });

  it('refuses a Load node without a source block', () => {
    expect(() => editorToEngine({ blocks: [{ id: 'ld', type: 'load', data: {} }], edges: [] })).toThrow(
      'a load node needs a source block',
    );
  });
});
