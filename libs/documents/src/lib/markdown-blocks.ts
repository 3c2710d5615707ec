import MarkdownIt from 'markdown-it';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

/** A markdown document as the block structure documents are drawn from. */
export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: { text: string; depth: number; marker: string }[] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; text: string }
  | { kind: 'table'; header: string[]; rows: string[][] }
  | { kind: 'rule' };

export const markdown = new MarkdownIt({ html: false, linkify: false });

/** The visible text of an inline token: emphasis and link markup dropped, breaks kept. */
function inlineText(t: Token): string {
  return (t.children ?? [])
    .map((c) =>
      c.type === 'text' || c.type === 'code_inline'
        ? c.content
        : c.type === 'softbreak'
          ? ' '
          : c.type === 'hardbreak'
            ? '\n'
            : c.type === 'image'
              ? c.content
              : '',
    )
    .join('');
}

/** The blocks of a markdown text (CommonMark with tables, as markdown-it reads it). */
export function markdownBlocks(source: string): Block[] {
  const tokens = markdown.parse(source, {});
  const blocks: Block[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let list: Extract<Block, { kind: 'list' }> | undefined;
  let quote = 0;
  let table: Extract<Block, { kind: 'table' }> | undefined;
  let row: string[] | undefined;
  let inHead = false;
  let heading = 0;
  let itemOpen = false;
  for (const t of tokens) {
    switch (t.type) {
      case 'heading_open':
        heading = Number(t.tag.slice(1));
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        lists.push({ ordered: t.type === 'ordered_list_open', n: Number(t.attrGet('start') ?? 1) });
        if (!list) {
          list = { kind: 'list', items: [] };
          blocks.push(list);
        }
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        if (!lists.length) {
          list = undefined;
        }
        break;
      case 'list_item_open':
        itemOpen = true;
        break;
      case 'blockquote_open':
        quote++;
        break;
      case 'blockquote_close':
        quote--;
        break;
      case 'table_open':
        table = { kind: 'table', header: [], rows: [] };
        blocks.push(table);
        break;
      case 'table_close':
        table = undefined;
        break;
      case 'thead_open':
        inHead = true;
        break;
      case 'thead_close':
        inHead = false;
        break;
      case 'tr_open':
        row = [];
        break;
      case 'tr_close':
        if (table && row) {
          if (inHead) {
            table.header = row;
          } else {
            table.rows.push(row);
          }
        }
        row = undefined;
        break;
      case 'fence':
      case 'code_block':
        blocks.push({ kind: 'code', text: t.content.replace(/\n$/, '') });
        break;
      case 'hr':
        blocks.push({ kind: 'rule' });
        break;
      case 'inline': {
        const text = inlineText(t);
        if (row) {
          row.push(text);
        } else if (heading) {
          blocks.push({ kind: 'heading', level: heading, text });
          heading = 0;
        } else if (list) {
          const top = lists[lists.length - 1];
          if (itemOpen) {
            list.items.push({ text, depth: lists.length - 1, marker: top.ordered ? `${top.n++}.` : '-' });
            itemOpen = false;
          } else {
            const last = list.items[list.items.length - 1];
            last.text += `\n${text}`;
          }
        } else if (quote) {
          blocks.push({ kind: 'quote', text });
        } else {
          blocks.push({ kind: 'paragraph', text });
        }
        break;
      }
      default:
        break;
    }
  }
  return blocks;
}

/** The blocks as plain text (pandoc's `plain` writer, roughly): no markup, blank lines between. */
export function plainText(blocks: readonly Block[]): string {
  const parts = blocks.map((b): string => {
    switch (b.kind) {
      case 'heading':
      case 'paragraph':
        return b.text;
      case 'quote':
        return `  ${b.text.replace(/\n/g, '\n  ')}`;
      case 'code':
        return b.text.replace(/^/gm, '    ');
      case 'list':
        return b.items.map((i) => `${'    '.repeat(i.depth)}${i.marker.padEnd(4)}${i.text}`).join('\n');
      case 'table': {
        const all = [b.header, ...b.rows];
        const width = b.header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
        const line = (r: string[]) =>
          r
            .map((v, c) => (v ?? '').padEnd(width[c]))
            .join('  ')
            .trimEnd();
        return [line(b.header), width.map((w) => '-'.repeat(w)).join('  '), ...b.rows.map(line)].join('\n');
      }
      case 'rule':
        return '-'.repeat(72);
    }
  });
  return `${parts.join('\n\n')}\n`;
}
