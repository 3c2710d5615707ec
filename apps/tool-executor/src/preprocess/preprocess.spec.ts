import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OriginFile, RuntimeState } from '@switchyard/contracts';
import { readOriginFile } from './file-source';
import { minimalPdf } from '@switchyard/knowledge';
import { escapePointer, preprocessFiles } from './preprocess';

let base: string;
let root: string;
const MAX = 1024;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'sy-preprocess-'));
  root = join(base, 'files');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(base, 'secret.txt'), 'outside the root');
  writeFileSync(join(root, 'notes.md'), '# Notes');
  writeFileSync(join(root, 'sub', 'sales.csv'), 'region,amount\n"North, East",120\n');
  writeFileSync(join(root, 'report.pdf'), minimalPdf('Quarterly report'));
  writeFileSync(join(root, 'big.txt'), 'x'.repeat(MAX + 1));
  writeFileSync(join(root, 'bad.json'), '{');
  symlinkSync(join(base, 'secret.txt'), join(root, 'link.txt'));
  symlinkSync(join(root, 'notes.md'), join(root, 'inner-link.md'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const local = (name: string, path: string, type = ''): OriginFile => ({
  name,
  type,
  mapping: { provider: 'local', path },
});

describe('readOriginFile', () => {
  it.each([
    ['a relative path', local('n', 'notes.md'), '# Notes'],
    ['a path in a subfolder', local('s', 'sub/sales.csv'), 'region,amount\n"North, East",120\n'],
    ['an absolute path inside the root', () => local('n', join(root, 'notes.md')), '# Notes'],
    ['local_path', { name: 'n', type: '', local_path: 'notes.md' }, '# Notes'],
    ['a symlink staying inside the root', local('l', 'inner-link.md'), '# Notes'],
    ['.. that comes back inside', local('n', 'sub/../notes.md'), '# Notes'],
  ])('reads %s', async (_label, file, content) => {
    const f = typeof file === 'function' ? file() : file;
    expect((await readOriginFile(f, { root, maxBytes: MAX })).toString()).toBe(content);
  });

  it.each([
    ['..', local('x', '../secret.txt'), /escapes the files root/],
    ['an absolute path outside', () => local('x', join(base, 'secret.txt')), /escapes the files root/],
    ['/etc/passwd', local('x', '/etc/passwd'), /escapes the files root/],
    ['a symlink out of the root', local('x', 'link.txt'), /symbolic link/],
    ['the root itself', local('x', '.'), /escapes the files root/],
    ['a directory', local('x', 'sub'), /not a regular file/],
    ['a missing file', local('x', 'nope.txt'), /not found/],
    ['a file over the cap', local('x', 'big.txt'), /over the limit of 1024 bytes/],
    [
      'an object store where none is configured',
      { name: 'x', type: '', mapping: { provider: 'aws', path: 'b/k' } },
      /object store "aws" is not configured here/,
    ],
    ['no location', { name: 'x', type: '' }, /neither a local_path nor a mapping/],
  ])('refuses %s', async (_label, file, message) => {
    const f = (typeof file === 'function' ? file() : file) as OriginFile;
    await expect(readOriginFile(f, { root, maxBytes: MAX })).rejects.toThrow(message);
  });
});

function stateWith(
  files: OriginFile[],
  done: Partial<RuntimeState['preprocessed_files']> = {},
): RuntimeState {
  return {
    origin_files: files,
    preprocessed_files: { documents: {}, tables: {}, other_files: {}, ...done },
  } as unknown as RuntimeState;
}

describe('preprocessFiles', () => {
  it.each([
    ['a/b', 'a~1b'],
    ['~x', '~0x'],
    ['plain.txt', 'plain.txt'],
  ])('escapes %s as %s', (name, escaped) => {
    expect(escapePointer(name)).toBe(escaped);
  });

  it('one add patch per new file, errors under other_files, context for documents', async () => {
    const out = await preprocessFiles(
      stateWith(
        [
          local('notes.md', 'notes.md', 'text/markdown'),
          local('q/sales.csv', 'sub/sales.csv', 'text/csv'),
          local('report.pdf', 'report.pdf', 'application/pdf'),
          local('evil.txt', '../secret.txt', 'text/plain'),
          local('bad.json', 'bad.json', 'application/json'),
          local('seen.txt', 'notes.md', 'text/plain'),
        ],
        { documents: { 'seen.txt': {} } },
      ),
      { root, maxBytes: MAX },
    );
    expect(out.patch).toEqual([
      {
        op: 'add',
        path: '/preprocessed_files/documents/notes.md',
        value: { text: '# Notes', chars: 7, type: 'md' },
      },
      {
        op: 'add',
        path: '/preprocessed_files/tables/q~1sales.csv',
        value: {
          columns: ['region', 'amount'],
          rows: [['North, East', '120']],
          row_count: 1,
          truncated: false,
        },
      },
      {
        op: 'add',
        path: '/preprocessed_files/documents/report.pdf',
        value: { text: 'Quarterly report', chars: 16, type: 'pdf', pages: 1 },
      },
      {
        op: 'add',
        path: '/preprocessed_files/other_files/evil.txt',
        value: { error: 'path "../secret.txt" escapes the files root' },
      },
      {
        op: 'add',
        path: '/preprocessed_files/other_files/bad.json',
        value: { error: expect.stringMatching(/^invalid JSON/) },
      },
    ]);
    expect(out.context).toEqual([
      { type: 'text', content: '[notes.md]\n# Notes', important: false, usage_type: 'reference' },
      { type: 'text', content: '[report.pdf]\nQuarterly report', important: false, usage_type: 'reference' },
    ]);
    expect(out.summary).toMatch(
      /^Preprocessed 5 file\(s\): 2 document\(s\), 1 table\(s\), 0 other file\(s\); 2 failed: evil\.txt: path/,
    );
  });

  it.each([
    ['no files', [], {}, 'No files to preprocess.'],
    [
      'every file done',
      [local('a.txt', 'notes.md')],
      { other_files: { 'a.txt': { error: 'x' } } },
      'All 1 files were already preprocessed.',
    ],
  ])('%s: no patch', async (_label, files, done, summary) => {
    const out = await preprocessFiles(stateWith(files, done), { root, maxBytes: MAX });
    expect(out).toEqual({ files: [], patch: [], context: [], summary });
  });
});
