// Templates inside reply text: {{last_user}}, {{tool_result}}, {{echo:REGEX}}; any of them may be
// written {{json:…}} to get the value JSON-string-escaped (no surrounding quotes), so a reply that is
// itself JSON text stays valid whatever the substituted value contains.

export type TemplatePart =
  | { kind: 'text'; text: string }
  | { kind: 'last_user' | 'tool_result'; json: boolean }
  | { kind: 'echo'; regex: RegExp; json: boolean };

export interface TemplateContext {
  /** Content of the last `user` message ('' if none). */
  lastUser: string;
  /** Content of the last `tool` message ('' if none). */
  toolResult: string;
  /** All message contents joined with "\n", tool messages included. */
  allText: string;
  /** Each message's content, oldest first (echo looks at the newest first). */
  texts?: readonly string[];
}

export class TemplateError extends Error {}

const KNOWN = '{{last_user}}, {{tool_result}}, {{echo:REGEX}}, each also as {{json:…}}';

/** Splits `text` into literal text and templates; throws TemplateError on an unknown or broken template. */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let pos = 0;
  while (pos < text.length) {
    const open = text.indexOf('{{', pos);
    if (open < 0) {
      parts.push({ kind: 'text', text: text.slice(pos) });
      break;
    }
    if (open > pos) {
      parts.push({ kind: 'text', text: text.slice(pos, open) });
    }
    let close = text.indexOf('}}', open + 2);
    if (close < 0) {
      throw new TemplateError(`unclosed "{{" at offset ${open} (known templates: ${KNOWN})`);
    }
    const json = text.startsWith('json:', open + 2);
    const nameStart = open + 2 + (json ? 5 : 0);
    if (text.startsWith('echo:', nameStart)) {
      // A regex may itself end in "}" (e.g. `[0-9]{2}`): the template ends at the last "}" of the run.
      while (text[close + 2] === '}') {
        close++;
      }
      const source = text.slice(nameStart + 5, close);
      let regex: RegExp;
      try {
        regex = new RegExp(source);
      } catch (e) {
        throw new TemplateError(`{{echo:${source}}}: invalid regular expression: ${(e as Error).message}`);
      }
      parts.push({ kind: 'echo', regex, json });
    } else {
      const name = text.slice(nameStart, close);
      if (name !== 'last_user' && name !== 'tool_result') {
        throw new TemplateError(`unknown template "${text.slice(open, close + 2)}" (known: ${KNOWN})`);
      }
      parts.push({ kind: name, json });
    }
    pos = close + 2;
  }
  return parts;
}

export function renderTemplate(text: string, ctx: TemplateContext): string {
  return parseTemplate(text)
    .map((part) => {
      if (part.kind === 'text') {
        return part.text;
      }
      let value: string;
      if (part.kind === 'echo') {
        const m = echoMatch(part.regex, ctx);
        // First capture group as documented; a regex without groups yields the whole match.
        value = m ? (m.length > 1 ? (m[1] ?? '') : m[0]) : '';
      } else {
        value = part.kind === 'last_user' ? ctx.lastUser : ctx.toolResult;
      }
      return part.json ? JSON.stringify(value).slice(1, -1) : value;
    })
    .join('');
}

/** Applies templates to every string inside a JSON-like value (tool-call arguments). */
export function renderDeep(value: unknown, ctx: TemplateContext): unknown {
  if (typeof value === 'string') {
    return renderTemplate(value, ctx);
  }
  if (Array.isArray(value)) {
    return value.map((v) => renderDeep(v, ctx));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, ctx)]));
  }
  return value;
}

/** Every string inside a JSON-like value with its path, for validating templates at load time. */
export function* stringsIn(
  value: unknown,
  path: (string | number)[] = [],
): Generator<[string, (string | number)[]]> {
  if (typeof value === 'string') {
    yield [value, path];
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      yield* stringsIn(v, [...path, i]);
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield* stringsIn(v, [...path, k]);
    }
  }
}

/**
 * Echo answers from the newest message that matches (as a model answers the latest question,
 * not the first one in the conversation); a regex that matches no single message is tried over
 * the whole conversation joined.
 */
function echoMatch(regex: RegExp, ctx: TemplateContext): RegExpExecArray | null {
  const texts = ctx.texts ?? [];
  for (let i = texts.length - 1; i >= 0; i--) {
    const m = regex.exec(texts[i]);
    if (m) {
      return m;
    }
  }
  return regex.exec(ctx.allText);
}
