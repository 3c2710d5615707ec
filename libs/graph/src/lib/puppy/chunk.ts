import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyStr, pyStrip, pyTypeName } from '../py-value';
import { ADVANCED_SUB_MODES, advancedChunk } from './advanced-chunk';
import { splitByDelimiters } from './modify';

type Json = Record<string, unknown>;
const isDict = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const fail = (message: string): never => {
  throw new GraphException(GraphErrorCode.ComponentFailed, message);
};

/**
 * The chunking modes run here, with the sub-modes each dispatches (`null`: the sub-mode is not
 * read). `llm` asks a model (the planner runs it: `LLM_CHUNK_MODE`); the others are computed.
 * Refused at save: `rechunk` (upstream's factory calls it before any proposition is added, so it
 * always writes `[]`: refused rather than silently empty), `length`/`token` (a Hugging Face
 * tokenizer). `advanced` parses with parse5 and markdown-it where upstream has BeautifulSoup
 * and markdown2 (`advanced-chunk.ts`).
 */
export const CHUNK_MODES: Readonly<Record<string, readonly string[] | null>> = {
  llm: ['llm'],
  auto: null,
  simple: null,
  length: ['size'],
  character: ['character'],
  special: ['recursive', 'semantic'],
  advanced: ADVANCED_SUB_MODES,
};
/** Why a known mode (or sub-mode) is not run here. */
export const REFUSED_CHUNK_MODES: Readonly<Record<string, string>> = {
  rechunk:
    "PuppyEngine's factory runs it before any proposition is added, so it always writes [] (nothing would be chunked)",
  'length/token': 'it tokenizes with a Hugging Face tokenizer model',
};

/** The defaults of `AutoChunking`. */
export const AUTO_DEFAULTS = {
  chunk_size: 1000,
  chunk_overlap: 200,
  separators: ['\n\n', '\n', '. ', ', ', ' '],
};
/** `size_chunk`'s split characters (a space always among them). */
const SIZE_SPLIT_CHARS = new Set([' ', '.', ',', ';', ':', '?', '!', '~']);

/** Python's `len()`: strings count code points, lists items, dicts keys; anything else has none. */
function pyLen(v: unknown): number | undefined {
  if (typeof v === 'string') {
    return [...v].length;
  }
  if (Array.isArray(v)) {
    return v.length;
  }
  return isDict(v) ? Object.keys(v).length : undefined;
}

const notText = (mode: string, doc: unknown): never =>
  fail(`the ${mode} chunking reads text, not ${pyTypeName(doc)}`);

/** `contents_to_chunks`: the texts that are not blank (ids dropped: the edge returns contents). */
const nonBlank = (contents: readonly unknown[]): string[] =>
  contents.filter((c): c is string => typeof c === 'string' && pyStrip(c) !== '');

// ---- auto -------------------------------------------------------------------------------------

/** `AutoChunking._split_on_sep`: pieces that each end with the separator; a trailing empty one dropped. */
function splitOnSep(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (;;) {
    const idx = text.indexOf(sep, start);
    if (idx === -1) {
      parts.push(text.slice(start));
      break;
    }
    parts.push(text.slice(start, idx + sep.length));
    start = idx + sep.length;
  }
  if (parts.length && parts[parts.length - 1] === '') {
    parts.pop();
  }
  return parts;
}

/**
 * `AutoChunking`: a text longer than `chunk_size` is split on the first separator, pieces still
 * too long on the next, and so on; past the last separator a piece is cut every
 * `chunk_size - chunk_overlap` characters. Separators stay at the end of their piece.
 */
function autoChunk(doc: unknown, extra: Json): string[] {
  const size = (extra['chunk_size'] ?? AUTO_DEFAULTS.chunk_size) as number;
  const overlap = (extra['chunk_overlap'] ?? AUTO_DEFAULTS.chunk_overlap) as number;
  const separators = (extra['separators'] ?? AUTO_DEFAULTS.separators) as string[];
  const len = pyLen(doc);
  if (typeof doc !== 'string') {
    // A structure no longer than chunk_size comes back whole, and is not a text chunk.
    return len !== undefined && len <= size ? [] : notText('auto', doc);
  }
  const fixed = (text: string): string[] => {
    if (size - overlap <= 0) {
      return fail(
        `chunk_overlap (${overlap}) must be below chunk_size (${size}): the cut would never advance`,
      );
    }
    const chars = [...text];
    const out: string[] = [];
    for (let start = 0; start < chars.length; start += size - overlap) {
      out.push(chars.slice(start, start + size).join(''));
    }
    return out;
  };
  const recurse = (text: string, seps: readonly string[]): string[] => {
    if ([...text].length <= size) {
      return [text];
    }
    if (!seps.length) {
      return fixed(text);
    }
    const [sep, ...rest] = seps;
    return splitOnSep(text, sep).flatMap((part) => ([...part].length > size ? recurse(part, rest) : [part]));
  };
  return nonBlank(recurse(doc, separators));
}

// ---- simple -----------------------------------------------------------------------------------

const SENTENCE_END = '[.!?]|[。！？]|[۔؟]|[।]|[።၊။།]|(?:\\r?\\n)+';

/** `SimpleChunking._chunk_text`: sentences, each with its ending punctuation or newlines. */
function chunkText(text: string): string[] {
  const isDelimiter = new RegExp(`^(?:${SENTENCE_END})`);
  const result: string[] = [];
  let current = '';
  for (const piece of text.split(new RegExp(`(${SENTENCE_END})`))) {
    if (!piece) {
      continue;
    }
    if (isDelimiter.test(piece)) {
      result.push(current + piece);
      current = '';
    } else {
      current = piece;
    }
  }
  if (current) {
    result.push(current);
  }
  return result;
}

/** `SimpleChunking._flatten_json`: `a.b[0]: value` for every leaf (values as Python's str()). */
function flattenJson(obj: Json, parent = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) => {
    const key = parent ? `${parent}.${k}` : k;
    if (isDict(v)) {
      return flattenJson(v, key);
    }
    if (Array.isArray(v)) {
      return v.flatMap((item, i) => flattenJson({ [`${key}[${i}]`]: item }));
    }
    return [`${key}: ${pyStr(v)}`];
  });
}

/** `SimpleChunking`: a text by sentences, a list by item (as str()), a dict by leaf. */
function simpleChunk(doc: unknown): string[] {
  if (typeof doc === 'string') {
    return nonBlank(chunkText(doc));
  }
  if (Array.isArray(doc)) {
    return nonBlank(doc.map(pyStr));
  }
  if (isDict(doc)) {
    return nonBlank(flattenJson(doc));
  }
  return fail(`Unsupported Input Type for Auto Chunk: Type ${pyTypeName(doc)}`);
}

// ---- length / size ----------------------------------------------------------------------------

/** Python `seq[a:b]` (negative bounds count from the end; `b` undefined: to the end). */
function pySlice<T>(seq: readonly T[], a: number, b?: number): T[] {
  const at = (i: number) => (i < 0 ? Math.max(seq.length + i, 0) : Math.min(i, seq.length));
  return seq.slice(at(a), b === undefined ? seq.length : at(b));
}

/**
 * `LengthChunking.size_chunk`: windows of `chunk_size` characters starting `overlap` characters
 * early, each stripped. With `handle_half_word` a window starting mid-word takes in the rest of
 * that word, and one ending mid-word is stretched to the next split character when that keeps it
 * within `chunk_size`, else cut back at its last split character (upstream then steps back two
 * characters too far, so the next window starts there: kept). A window sequence that would return
 * to a start it had (upstream loops forever) fails instead.
 */
function sizeChunk(doc: unknown, extra: Json): string[] {
  const size = (extra['chunk_size'] ?? 100) as number;
  const overlap = (extra['overlap'] ?? 0) as number;
  const halfWord = extra['handle_half_word'] === true;
  if (typeof doc !== 'string') {
    // An empty structure has no window; any other breaks upstream's slicing or strip().
    return pyLen(doc) === 0 ? [] : notText('length', doc);
  }
  const d = [...doc];
  const n = d.length;
  const isSplit = (c: string | undefined) => c !== undefined && SIZE_SPLIT_CHARS.has(c);
  // nextSplit[i]: the first split character at or after i; prevSplit[i]: the last one before i.
  const nextSplit = new Array<number>(n + 1).fill(-1);
  for (let i = n - 1; i >= 0; i--) {
    nextSplit[i] = isSplit(d[i]) ? i : nextSplit[i + 1];
  }
  const prevSplit = new Array<number>(n + 1).fill(-1);
  for (let i = 1; i <= n; i++) {
    prevSplit[i] = isSplit(d[i - 1]) ? i - 1 : prevSplit[i - 1];
  }
  const from = (i: number) => (i < 0 ? Math.max(n + i, 0) : Math.min(i, n));
  const chunks: string[] = [];
  const seen = new Set<number>();
  let start = 0;
  while (start < n) {
    if (seen.has(start)) {
      return fail(
        `the length chunking would never end: chunk_size ${size} is too short for a word here (PuppyEngine loops forever)`,
      );
    }
    seen.add(start);
    let end = Math.min(start + size, n);
    let content = pySlice(d, Math.max(0, start - overlap), end);
    if (halfWord) {
      if (!content.length) {
        return fail('string index out of range');
      }
      // _append_previous_word: the word the window starts in, from the text before the overlap.
      if (start > 0 && !isSplit(content[0])) {
        const prevEnd = from(start - overlap);
        const last = prevSplit[prevEnd];
        if (last !== -1) {
          content = [...d.slice(last + 1, prevEnd), ...content];
        }
      }
      // _extend_chunk: to the next split character, or _inner_cut back to the last one.
      if (end < n && !isSplit(content[content.length - 1])) {
        const rest = from(end);
        const next = nextSplit[rest];
        if (next !== -1) {
          const gap = next - rest;
          if (content.length + gap <= size) {
            content = [...content, ...d.slice(rest, next + 1)];
            end += gap + 1;
          } else {
            for (let cut = content.length - 1; cut >= 0; cut--) {
              if (isSplit(content[cut]) && cut <= size) {
                end -= content.length - cut + 1;
                content = content.slice(0, cut + 1);
                break;
              }
            }
          }
        }
      }
    }
    chunks.push(pyStrip(content.join('')));
    start = end;
  }
  return chunks;
}

// ---- character --------------------------------------------------------------------------------

/** `CharacterChunking.split_by_chars`: the stripped, non-blank pieces between the delimiters. */
function characterChunk(doc: unknown, extra: Json): string[] {
  if (typeof doc !== 'string') {
    return notText('character', doc);
  }
  const raw = extra['delimiters'] ?? [',', ';'];
  const delimiters = typeof raw === 'string' ? [...raw] : (raw as string[]);
  // An empty pattern splits between every character (Python's re.split('')).
  const pieces = delimiters.length ? splitByDelimiters(doc, delimiters) : [...doc];
  return pieces.map(pyStrip).filter((s) => s !== '');
}

// ---- special ----------------------------------------------------------------------------------

/**
 * `SpecialChunking.recursive_text_splitter`: a text over the maximum is cut into sentences (after
 * `.`, `!` or `?` and spaces) gathered while they fit. The maximum is read from
 * `extra_configs.extra_configs` (200 by default), upstream's key.
 */
function recursiveChunk(doc: unknown, extra: Json): string[] {
  const max = (extra['extra_configs'] ?? 200) as number;
  if (typeof doc !== 'string') {
    return notText('recursive', doc);
  }
  const len = (s: string) => [...s].length;
  let pieces: string[];
  if (len(doc) <= max) {
    pieces = [doc];
  } else {
    pieces = [];
    let current = '';
    for (const sentence of doc.split(/(?<=[.!?]) +/)) {
      if (len(current) + len(sentence) <= max) {
        current += ` ${sentence}`;
      } else {
        pieces.push(pyStrip(current));
        current = sentence;
      }
    }
    if (current) {
      pieces.push(pyStrip(current));
    }
  }
  return nonBlank(pieces);
}

/** sklearn's cosine_similarity of two vectors (a zero vector is similar to nothing). */
function cosine(a: readonly number[], b: readonly number[]): number {
  const norm = (v: readonly number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const na = norm(a) || 1;
  const nb = norm(b) || 1;
  return a.reduce((s, x, i) => s + (x / na) * (b[i] / nb), 0);
}

/**
 * `SpecialChunking.semantic_chunk` on `extra_configs.docs` and their `embeddings` (the block is not
 * read): a doc joins the current chunk unless its best similarity to the chunk's docs — or the mean
 * of its `top_k` best — is under `threshold`; a chunk is its docs joined with nothing between.
 */
function semanticChunk(extra: Json): string[] {
  const docs = (extra['docs'] ?? []) as string[];
  const embeddings = (extra['embeddings'] ?? []) as number[][];
  const threshold = extra['threshold'] === undefined ? 0.75 : (extra['threshold'] as number | null);
  const topK = (extra['top_k'] ?? null) as number | null;
  const groups: string[][] = [];
  let docsOf: string[] = [];
  let vectors: number[][] = [];
  for (let i = 0; i < Math.min(docs.length, embeddings.length); i++) {
    const [doc, embedding] = [docs[i], embeddings[i]];
    if (!docsOf.length) {
      docsOf.push(doc);
      vectors.push(embedding);
      continue;
    }
    const similarities = vectors.map((v) => cosine(embedding, v));
    const best = topK
      ? (() => {
          const top = [...similarities].sort((a, b) => b - a).slice(0, topK);
          return top.reduce((s, x) => s + x, 0) / top.length;
        })()
      : Math.max(...similarities);
    if (threshold !== null && best < threshold) {
      groups.push(docsOf);
      docsOf = [doc];
      vectors = [embedding];
    } else {
      docsOf.push(doc);
      vectors.push(embedding);
    }
  }
  if (docsOf.length) {
    groups.push(docsOf);
  }
  return groups.map((g) => g.join(''));
}

/**
 * Runs one chunking (`ChunkerFactory.execute`) of `doc` (the edge's input block, or one item of
 * it when looped): the chunks' contents. Modes and sub-modes are matched case-insensitively.
 */
/** The chunking mode that asks a model: it runs in the planner, never inline. */
export const LLM_CHUNK_MODE = 'llm';

/** Whether a chunk edge's mode asks a model (`chunking_mode` "llm", any case). */
export function isLlmChunk(data: Json): boolean {
  return typeof data['chunking_mode'] === 'string' && data['chunking_mode'].toLowerCase() === LLM_CHUNK_MODE;
}

/** PuppyEngine's LLM chunking prompt (`LLMChunking.llm_chunk`), used unless `extra_configs.prompt` replaces it. */
export const LLM_CHUNK_PROMPT = `
You are an expert document chunker. Your task is to split the original document into semantically meaningful chunks. 
Ensure that the document is chunked in a way that each chunk contains coherent and complete thoughts or ideas.

Important Guidelines:
- Each chunk should be a collection of sentences that talk about a similar topic.
- Ensure that no sentence is split between chunks; keep all sentences intact within the same chunk.
- The chunks should preserve the natural flow of the content but break the text down into digestible parts.
- The chunks should not exceed a length where meaning might be lost but should also not be too short, avoid one-liner chunks unless necessary.
- Return the chunks in a valid json object, where contains one \`chunks\` field only and the value is a list of string each represent a chunk.

## Examples:
The original document: "Artificial Intelligence is rapidly evolving. It can now perform complex tasks. Some believe AI will surpass human intelligence. Others argue that AI can only assist in specific tasks."
Desired Output in json format:
{
    "chunks": [
        "Artificial Intelligence is rapidly evolving. It can now perform complex tasks.",
        "Some believe AI will surpass human intelligence. Others argue that AI can only assist in specific tasks."
    ]
}

The original document: "The quick brown fox jumps over the lazy dog. The dog barks at the fox."
Desired Output in json:
{
    "chunks": [
        "The quick brown fox jumps over the lazy dog.",
        "The dog barks at the fox."
    ]
}

**Note**: Always output with a valid json with the \`chunks\` field as the key and a list of chunks in sequence.
        `;

/** The messages of an LLM chunking of `doc`: the prompt (or the edge's own), then the document. */
export function llmChunkMessages(doc: unknown, extra: Json): { role: 'system' | 'user'; content: string }[] {
  const prompt = typeof extra['prompt'] === 'string' && extra['prompt'] ? extra['prompt'] : LLM_CHUNK_PROMPT;
  return [
    { role: 'system', content: prompt },
    { role: 'user', content: `The original document: ${pyStr(doc)}` },
  ];
}

export function runChunk(mode: string, subMode: unknown, doc: unknown, extra: Json = {}): string[] {
  const sub = typeof subMode === 'string' ? subMode.toLowerCase() : '';
  switch (mode.toLowerCase()) {
    case 'auto':
      return autoChunk(doc, extra);
    case 'simple':
      return simpleChunk(doc);
    case 'length':
      return sub === 'size' ? sizeChunk(doc, extra) : fail('Unsupported Sub Chunking Mode for Length Chunk');
    case 'character':
      return sub === 'character'
        ? characterChunk(doc, extra)
        : fail('Unsupported Sub Chunking Mode for Character Chunk');
    case 'special':
      return sub === 'recursive'
        ? recursiveChunk(doc, extra)
        : sub === 'semantic'
          ? semanticChunk(extra)
          : fail('Unsupported Sub Chunking Mode for Special Chunk');
    case 'advanced':
      return advancedChunk(sub, doc, extra);
    default:
      return fail(`Unsupported Chunking Mode: ${mode} is unsupported!`);
  }
}
