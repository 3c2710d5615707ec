import { GraphErrorCode, type GraphProblem } from '../graph.exception';
import { AUTO_DEFAULTS, CHUNK_MODES, REFUSED_CHUNK_MODES } from './chunk';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The most texts a semantic chunking compares (each pair of them, inline). */
export const MAX_SEMANTIC_DOCS = 1_000;
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const texts = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '');

/** The settings of one runnable chunking that upstream would fail on (or loop forever with). */
function settingProblems(
  mode: string,
  sub: string,
  extra: Json,
  add: (field: string, message: string) => void,
) {
  const at = (field: string) => `data.extra_configs.${field}`;
  const positive = (key: string) => {
    if (extra[key] !== undefined && !(isInt(extra[key]) && extra[key] > 0)) {
      add(at(key), `${key} is a positive integer`);
      return false;
    }
    return true;
  };
  if (mode === 'auto') {
    const sizeOk = positive('chunk_size');
    const overlap = extra['chunk_overlap'];
    if (overlap !== undefined && !isInt(overlap)) {
      add(at('chunk_overlap'), 'chunk_overlap is an integer');
    } else if (sizeOk) {
      const size = (extra['chunk_size'] ?? AUTO_DEFAULTS.chunk_size) as number;
      const o = (overlap ?? AUTO_DEFAULTS.chunk_overlap) as number;
      if (o >= size) {
        add(
          at('chunk_overlap'),
          `chunk_overlap (${o}${overlap === undefined ? ', the default' : ''}) must be below chunk_size (${size}): PuppyEngine's fixed cut would never advance`,
        );
      }
    }
    if (extra['separators'] !== undefined && !texts(extra['separators'])) {
      add(at('separators'), 'separators is a list of non-empty texts');
    }
  }
  if (mode === 'length' && sub === 'size') {
    const sizeOk = positive('chunk_size');
    const overlap = extra['overlap'];
    if (overlap !== undefined && !(isInt(overlap) && overlap >= 0)) {
      add(at('overlap'), 'overlap is a non-negative integer');
    } else if (sizeOk && isInt(overlap) && overlap > ((extra['chunk_size'] ?? 100) as number)) {
      add(at('overlap'), 'overlap may not exceed chunk_size (each chunk would repeat more than it adds)');
    }
    if (extra['handle_half_word'] !== undefined && typeof extra['handle_half_word'] !== 'boolean') {
      add(at('handle_half_word'), 'handle_half_word is a boolean');
    }
    const splitChars = extra['split_chars'];
    if (
      splitChars !== undefined &&
      splitChars !== null &&
      !(Array.isArray(splitChars) && splitChars.length === 0)
    ) {
      add(
        at('split_chars'),
        'PuppyEngine adds " " to split_chars as to a set and fails on any list: leave it out',
      );
    }
  }
  if (mode === 'character') {
    const d = extra['delimiters'];
    if (d !== undefined && typeof d !== 'string' && !texts(d)) {
      add(at('delimiters'), 'delimiters is a list of non-empty texts');
    }
  }
  if (mode === 'special' && sub === 'recursive') {
    // Upstream reads the maximum length from extra_configs.extra_configs.
    positive('extra_configs');
  }
  if (mode === 'advanced' && (sub === 'html' || sub === 'markdown')) {
    // Upstream unpacks each entry as (tag, label) and keys a dict by the label.
    const tags = extra['tags'];
    const isPair = (p: unknown) =>
      Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'string');
    if (tags !== undefined && tags !== null && !(Array.isArray(tags) && tags.every(isPair))) {
      add(at('tags'), 'tags is a list of [tag, label] pairs of texts (none or empty: every element)');
    }
  }
  if (mode === 'special' && sub === 'semantic') {
    const docs = extra['docs'];
    const vectors = extra['embeddings'];
    if (docs !== undefined && !(Array.isArray(docs) && docs.every((x) => typeof x === 'string'))) {
      add(at('docs'), 'docs is a list of texts');
    } else if (Array.isArray(docs) && docs.length > MAX_SEMANTIC_DOCS) {
      // Every pair is compared, inline in the orchestrator's step: the list is bounded.
      add(
        at('docs'),
        `docs holds ${docs.length} texts: a semantic chunking compares at most ${MAX_SEMANTIC_DOCS}`,
      );
    }
    const isVector = (v: unknown) =>
      Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number');
    if (
      vectors !== undefined &&
      !(
        Array.isArray(vectors) &&
        vectors.every(isVector) &&
        new Set(vectors.map((v) => (v as number[]).length)).size <= 1
      )
    ) {
      add(at('embeddings'), 'embeddings is a list of number vectors, all of one length');
    }
    if (
      extra['threshold'] !== undefined &&
      extra['threshold'] !== null &&
      typeof extra['threshold'] !== 'number'
    ) {
      add(at('threshold'), 'threshold is a number (or null: never split)');
    }
    const topK = extra['top_k'];
    if (topK !== undefined && topK !== null && !(isInt(topK) && topK >= 0)) {
      add(at('top_k'), 'top_k is a non-negative integer (or null)');
    }
  }
}

/**
 * What a chunk edge is refused for at save: not exactly one input (upstream chunks "the first" of
 * a set of inputs), a mode or sub-mode that is unknown or needs a model or parser this runtime has
 * not (`REFUSED_CHUNK_MODES`), and settings the mode would fail on at run time — each naming the
 * field.
 */
export function chunkProblems(edge: string, d: Json, inputs: Record<string, string>): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const add = (field: string, message: string, code = GraphErrorCode.MissingParam) =>
    problems.push({ code, edge, field, message });
  if (Object.keys(inputs).length !== 1) {
    add('data.inputs', 'a chunk edge chunks one input block');
  }
  const rawMode = d['chunking_mode'];
  if (typeof rawMode !== 'string' || rawMode === '') {
    add(
      'data.chunking_mode',
      `a chunk edge needs its chunking_mode (one of ${Object.keys(CHUNK_MODES).join(', ')})`,
    );
    return problems;
  }
  const mode = rawMode.toLowerCase();
  const rawSub = d['sub_chunking_mode'] ?? '';
  const sub = typeof rawSub === 'string' ? rawSub.toLowerCase() : '';
  if (Object.hasOwn(REFUSED_CHUNK_MODES, mode)) {
    add(
      'data.chunking_mode',
      `the chunking mode "${rawMode}" is not run by this runtime: ${REFUSED_CHUNK_MODES[mode]}`,
      GraphErrorCode.UnsupportedComponent,
    );
    return problems;
  }
  if (!Object.hasOwn(CHUNK_MODES, mode)) {
    add(
      'data.chunking_mode',
      `unknown chunking_mode "${rawMode}" (one of ${Object.keys(CHUNK_MODES).join(', ')})`,
      GraphErrorCode.UnknownComponent,
    );
    return problems;
  }
  const subs = CHUNK_MODES[mode];
  if (subs && !subs.includes(sub)) {
    const refused = REFUSED_CHUNK_MODES[`${mode}/${sub}`];
    add(
      'data.sub_chunking_mode',
      refused
        ? `the ${mode} sub-mode "${String(rawSub)}" is not run by this runtime: ${refused}`
        : `the ${mode} chunking has no sub_chunking_mode "${String(rawSub)}" (one of ${subs.join(', ')})`,
      refused ? GraphErrorCode.UnsupportedComponent : GraphErrorCode.UnknownComponent,
    );
    return problems;
  }
  if (d['extra_configs'] !== undefined && !isRecord(d['extra_configs'])) {
    add('data.extra_configs', 'extra_configs is an object');
    return problems;
  }
  settingProblems(mode, sub, isRecord(d['extra_configs']) ? d['extra_configs'] : {}, add);
  return problems;
}
