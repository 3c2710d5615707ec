import type { GraphException } from '../graph.exception';
import { LLM_CHUNK_PROMPT, isLlmChunk, llmChunkMessages, runChunk } from './chunk';
import { runPureEdge } from './edge-run';
import { purePuppyEdge } from './edge-step';
import { validateWorkflow } from './parse-workflow';
import { blockViews } from './scheduler';
import { type PuppyWorkflow, PuppyWorkflowSchema } from './workflow.schema';

const chunkWorkflow = (data: Record<string, unknown>, looped = false) => ({
  blocks: {
    doc: { label: 'doc', type: 'structured', looped, data: { content: null } },
    out: { label: 'out', type: 'structured', data: {} },
  },
  edges: { c: { type: 'chunk', data: { inputs: { doc: 'doc' }, outputs: { out: 'out' }, ...data } } },
});

function problemsOf(raw: unknown): string[] {
  try {
    validateWorkflow(raw);
  } catch (err) {
    return (err as GraphException).problems.map((p) => `${p.code} ${p.edge} ${p.field}: ${p.message}`);
  }
  return [];
}

describe(runChunk.name, () => {
  it('fails where PuppyEngine would loop forever (a window cut back to a start it had)', () => {
    // python3 on upstream's LengthChunking with these settings never returns.
    expect(() =>
      runChunk('length', 'size', 'a bcdefgh ijklmnop qrs', {
        chunk_size: 5,
        overlap: 0,
        handle_half_word: true,
      }),
    ).toThrow('the length chunking would never end');
  });

  it('reads text only where upstream does', () => {
    expect(() => runChunk('character', 'character', { a: 1 })).toThrow(
      'the character chunking reads text, not dict',
    );
    expect(() => runChunk('simple', '', 5)).toThrow('Unsupported Input Type for Auto Chunk: Type int');
    expect(runChunk('length', 'size', [])).toEqual([]);
  });

  it('splits between every character with no delimiters (re.split on an empty pattern)', () => {
    expect(runChunk('character', 'character', 'a b', { delimiters: [] })).toEqual(['a', 'b']);
  });
});

describe('a chunk edge run', () => {
  const run = (raw: unknown, content: unknown) => {
    const w: PuppyWorkflow = PuppyWorkflowSchema.parse(raw);
    return runPureEdge(w, 'c', blockViews(w, { begin: { blocks: { doc: content } } }));
  };
  const byChar = {
    chunking_mode: 'character',
    sub_chunking_mode: 'character',
    extra_configs: { delimiters: [','] },
  };

  it('writes the chunk list to every output', () => {
    expect(run(chunkWorkflow(byChar), 'a,b')).toEqual({ out: ['a', 'b'] });
  });

  it('chunks a looped block item by item (each as str()), writing one list per item', () => {
    expect(run(chunkWorkflow(byChar, true), ['a,b', 'c', { k: 'x,y' }])).toEqual({
      out: [['a', 'b'], ['c'], ["{'k': 'x", "y'}"]],
    });
  });

  it('wraps the result of a looped block holding a text in a list, as upstream', () => {
    expect(run(chunkWorkflow(byChar, true), 'a,b')).toEqual({ out: [['a', 'b']] });
  });
});

describe('chunk edges at save', () => {
  it.each([
    [{ chunking_mode: 'auto' }],
    [{ chunking_mode: 'LLM', sub_chunking_mode: 'llm', extra_configs: { model: { 'openai/gpt-5': {} } } }],
    [{ chunking_mode: 'Auto', extra_configs: { chunk_size: 500, chunk_overlap: 50, separators: ['\n'] } }],
    [{ chunking_mode: 'simple' }],
    [{ chunking_mode: 'length', sub_chunking_mode: 'size', extra_configs: { chunk_size: 200, overlap: 20 } }],
    [
      {
        chunking_mode: 'character',
        sub_chunking_mode: 'character',
        extra_configs: { delimiters: [',', '\n'] },
      },
    ],
    [{ chunking_mode: 'special', sub_chunking_mode: 'recursive', extra_configs: { extra_configs: 80 } }],
    [
      {
        chunking_mode: 'special',
        sub_chunking_mode: 'semantic',
        extra_configs: { docs: ['a'], embeddings: [[1, 0]] },
      },
    ],
    [{ chunking_mode: 'advanced', sub_chunking_mode: 'html', extra_configs: { tags: [['h1', 'Header 1']] } }],
    [{ chunking_mode: 'Advanced', sub_chunking_mode: 'Markdown', extra_configs: { tags: null } }],
    [{ chunking_mode: 'advanced', sub_chunking_mode: 'markdown_structured' }],
  ])('accepts %j', (data) => {
    expect(problemsOf(chunkWorkflow(data))).toEqual([]);
  });

  it.each([
    [
      'rechunk',
      { chunking_mode: 'rechunk' },
      'unsupported_component c data.chunking_mode: the chunking mode "rechunk" is not run by this runtime: PuppyEngine',
    ],
    [
      'the llm mode with another sub-mode',
      { chunking_mode: 'llm', sub_chunking_mode: 'x' },
      'data.sub_chunking_mode',
    ],
    [
      'advanced tags that are not [tag, label] pairs',
      { chunking_mode: 'advanced', sub_chunking_mode: 'html', extra_configs: { tags: [['h1']] } },
      'missing_param c data.extra_configs.tags: tags is a list of [tag, label] pairs',
    ],
    [
      'advanced tags given as names',
      { chunking_mode: 'advanced', sub_chunking_mode: 'markdown', extra_configs: { tags: ['h1', 'h2'] } },
      'data.extra_configs.tags: tags is a list of [tag, label] pairs',
    ],
    [
      'an unknown advanced sub-mode',
      { chunking_mode: 'advanced', sub_chunking_mode: 'pdf' },
      'unknown_component c data.sub_chunking_mode: the advanced chunking has no sub_chunking_mode "pdf" (one of html, markdown, markdown_structured)',
    ],
    [
      'token lengths',
      { chunking_mode: 'length', sub_chunking_mode: 'token' },
      'data.sub_chunking_mode: the length sub-mode "token" is not run by this runtime: it tokenizes with a Hugging Face tokenizer model',
    ],
    [
      "PuppyFlow's tokenizer sub-mode",
      { chunking_mode: 'length', sub_chunking_mode: 'tokenizer' },
      'data.sub_chunking_mode: the length chunking has no sub_chunking_mode "tokenizer" (one of size)',
    ],
    ['a missing mode', {}, 'data.chunking_mode: a chunk edge needs its chunking_mode'],
    [
      'an unknown mode',
      { chunking_mode: 'magic' },
      'unknown_component c data.chunking_mode: unknown chunking_mode "magic"',
    ],
    [
      'an auto overlap not under the size',
      { chunking_mode: 'auto', extra_configs: { chunk_size: 100 } },
      'data.extra_configs.chunk_overlap: chunk_overlap (200, the default) must be below chunk_size (100)',
    ],
    [
      'a zero chunk size',
      { chunking_mode: 'length', sub_chunking_mode: 'size', extra_configs: { chunk_size: 0 } },
      'data.extra_configs.chunk_size: chunk_size is a positive integer',
    ],
    [
      'an overlap over the size',
      { chunking_mode: 'length', sub_chunking_mode: 'size', extra_configs: { chunk_size: 10, overlap: 11 } },
      'data.extra_configs.overlap: overlap may not exceed chunk_size',
    ],
    [
      'split_chars (a list upstream cannot add to)',
      { chunking_mode: 'length', sub_chunking_mode: 'size', extra_configs: { split_chars: ['-'] } },
      'data.extra_configs.split_chars',
    ],
    [
      'an empty delimiter',
      { chunking_mode: 'character', sub_chunking_mode: 'character', extra_configs: { delimiters: [''] } },
      'data.extra_configs.delimiters: delimiters is a list of non-empty texts',
    ],
    [
      'embeddings of two lengths',
      {
        chunking_mode: 'special',
        sub_chunking_mode: 'semantic',
        extra_configs: { embeddings: [[1], [1, 2]] },
      },
      'data.extra_configs.embeddings',
    ],
    [
      'more texts than a semantic chunking compares',
      {
        chunking_mode: 'special',
        sub_chunking_mode: 'semantic',
        extra_configs: { docs: Array.from({ length: 1001 }, () => 'x') },
      },
      'data.extra_configs.docs: docs holds 1001 texts: a semantic chunking compares at most 1000',
    ],
  ])('refuses %s, naming the field', (_name, data, message) => {
    expect(problemsOf(chunkWorkflow(data)).join('\n')).toContain(message);
  });

  it('refuses a chunk edge with two inputs (upstream takes an arbitrary one)', () => {
    const w = chunkWorkflow({ chunking_mode: 'auto' });
    (w.blocks as Record<string, unknown>)['doc2'] = { label: 'doc2', type: 'text', data: { content: 'x' } };
    (w.edges.c.data as Record<string, unknown>)['inputs'] = { doc: 'doc', doc2: 'doc2' };
    expect(problemsOf(w).join('\n')).toContain('c data.inputs: a chunk edge chunks one input block');
  });
});

describe('the llm chunking mode', () => {
  it("asks with PuppyEngine's prompt, or the edge's own, then the document as Python's str()", () => {
    expect(llmChunkMessages('A. B.', {})).toEqual([
      { role: 'system', content: LLM_CHUNK_PROMPT },
      { role: 'user', content: 'The original document: A. B.' },
    ]);
    expect(llmChunkMessages({ a: 1 }, { prompt: 'Split it.' })).toEqual([
      { role: 'system', content: 'Split it.' },
      { role: 'user', content: "The original document: {'a': 1}" },
    ]);
    expect(LLM_CHUNK_PROMPT).toContain('one `chunks` field only');
  });

  it('is a model call: never inline', () => {
    const w = PuppyWorkflowSchema.parse(chunkWorkflow({ chunking_mode: 'llm', sub_chunking_mode: 'llm' }));
    expect(isLlmChunk(w.edges['c'].data as Record<string, unknown>)).toBe(true);
    expect(purePuppyEdge(w, 'c')).toBe(false);
    expect(purePuppyEdge(PuppyWorkflowSchema.parse(chunkWorkflow({ chunking_mode: 'auto' })), 'c')).toBe(
      true,
    );
  });
});
