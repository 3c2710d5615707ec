import { GraphErrorCode, GraphException } from '../graph.exception';
import { pyStr } from '../py-value';
import type { PuppyBlock } from './workflow.schema';

/** PuppyEngine's placeholder: `{{label}}`, the label of one of the edge's input blocks. */
export const PLACEHOLDER = /\{\{(.*?)\}\}/g;

/** The labels a text's placeholders name, in order (duplicates kept). */
export function placeholderLabels(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** An input block of an edge as its placeholders see it: its label and its value. */
export interface LabelledValue {
  blockId: string;
  label: string;
  value: unknown;
}

/**
 * `_escape_markdown`: backslashes, newlines, tabs and quotes escaped, so a value spliced into an
 * edit_structured `value` param reads as one literal line.
 */
function escapeInner(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
    .replace(/"/g, '\\"')
    .replace(/'/g, "\\'");
}

/**
 * PuppyEngine's `replace_placeholders`: each `{{label}}` is the value of the first input block
 * with that label. A text that is one whole placeholder gives the raw typed value (unless
 * `keepText`, which `edit_text` asks for); otherwise values are spliced in as Python's `str()`
 * (escaped with `escape`, as for edit_structured's `value` params).
 * An unknown label throws, naming it.
 */
export function replacePlaceholders(
  text: string,
  inputs: readonly LabelledValue[],
  keepText = false,
  escape = false,
): unknown {
  let out = text;
  for (const label of placeholderLabels(text)) {
    const input = inputs.find((i) => i.label === label);
    if (!input) {
      throw new GraphException(GraphErrorCode.UnknownVariable, `Block ${label} not found`);
    }
    const whole = `{{${label}}}`;
    if (text === whole && !keepText) {
      return input.value;
    }
    const spliced = pyStr(input.value ?? '');
    out = out.split(whole).join(escape ? escapeInner(spliced) : spliced);
  }
  return out;
}

function tryJson(v: string): unknown {
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/**
 * What an edge reads from a block (PuppyEngine `normalize_block_content`): a structured block's
 * JSON text is parsed, a list of JSON texts parsed item by item, and a one-item list of a block
 * that is not looped unwrapped to its item. Other blocks are read as they are.
 */
export function normalizeBlockContent(block: Pick<PuppyBlock, 'type' | 'looped'>, content: unknown): unknown {
  if (block.type !== 'structured') {
    return content;
  }
  let v = typeof content === 'string' ? tryJson(content) : content;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    v = v.map((x: string) => tryJson(x));
  }
  if (!block.looped && Array.isArray(v) && v.length === 1) {
    return v[0];
  }
  return v;
}
