import type { ChatMessage, MemoryItem, RuntimeState } from '@switchyard/contracts';
import { dataCatalogue } from '@switchyard/state';
import { describeUserContext } from '@switchyard/contracts';

// What the planner knows besides the prompt (seed 003's background: user_context, memory,
// origin and preprocessed files, and the earlier conversation), as prompt sections. Pure, so what
// each call sees can be unit tested; planner.controller.ts puts it into every planner call.

/** A knowledge collection of the run's tenant the planner may search with `retrieval`. */
export interface CollectionEntry {
  id: string;
  name: string;
  documents: number;
}

export interface PlannerBackground {
  /** Prompt sections for the system message, in order; empty ones left out. */
  sections: string[];
  /** The thread's earlier messages that fit the budget, oldest first (the current prompt excluded). */
  history: ChatMessage[];
  /** Earlier messages left out because they did not fit the budget. */
  omitted: number;
}

/** Roughly four characters per token: the budget is an estimate, not a tokenizer's count. */
export const CHARS_PER_TOKEN = 4;
// One recalled item, one file entry, one history message: cut so no single item swamps the call.
const ITEM_MAX_CHARS = 2_000;
const MAX_FILES = 50;
const MAX_COLLECTIONS = 50;

const cut = (s: string, max = ITEM_MAX_CHARS): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * The planner's background for the current turn. `historyTokens` bounds the earlier conversation:
 * the newest messages are kept whole until the budget is spent, older ones are dropped (and
 * counted, so the model is told that some were left out).
 */
export function plannerBackground(
  state: Readonly<RuntimeState>,
  opts: {
    historyTokens: number;
    collections: readonly CollectionEntry[];
    retrievalOffered: boolean;
    /** Whether `extract_data_by_path` is offered: then the outputs kept whole are catalogued. */
    extractOffered?: boolean;
  },
): PlannerBackground {
  const { history, omitted } = earlierConversation(
    state.chat_history,
    state.prompts[state.turn] ?? '',
    opts.historyTokens * CHARS_PER_TOKEN,
  );
  const sections = [
    describeUserContext(state.user_context),
    recalled(state.memory),
    filesCatalogue(state),
    opts.retrievalOffered ? collectionsCatalogue(opts.collections) : '',
    opts.extractOffered ? dataCatalogue(state) : '',
    omitted > 0
      ? `${omitted} earlier message(s) of this conversation are left out (the conversation is longer than the planner's history budget); the newest ${history.length} follow.`
      : '',
  ].filter(Boolean);
  return { sections, history, omitted };
}

/** Recalled memory: background, not evidence for this turn (it may be outdated). */
export function recalled(memory: readonly MemoryItem[]): string {
  if (memory.length === 0) {
    return '';
  }
  const lines = memory.map((m) => `[recalled] ${cut(oneLine(m.content))} (score ${m.score})`);
  return `Recalled from the user's earlier conversations (background that may be outdated, not a result of this turn):\n${lines.join('\n')}`;
}

/** The turn's files and what preprocessing made of them, by name, so a todo can refer to them. */
export function filesCatalogue(state: Readonly<RuntimeState>): string {
  const lines: string[] = [];
  for (const f of state.origin_files.slice(0, MAX_FILES)) {
    const where = f.mapping?.public ?? f.mapping?.path ?? f.local_path;
    lines.push(`- ${f.name} (${f.type})${where ? ` at ${where}` : ''}`);
  }
  if (state.origin_files.length > MAX_FILES) {
    lines.push(`- … and ${state.origin_files.length - MAX_FILES} more`);
  }
  const pre = state.preprocessed_files;
  const kinds: [string, Record<string, unknown>][] = [
    ['document', pre.documents],
    ['table', pre.tables],
    ['other file', pre.other_files],
  ];
  const processed = kinds.flatMap(([kind, entries]) =>
    Object.entries(entries)
      .slice(0, MAX_FILES)
      .map(([name, value]) => `- ${kind} ${name}: ${cut(oneLine(describeProcessed(value)), 300)}`),
  );
  return [
    lines.length ? `Files of this turn:\n${lines.join('\n')}` : '',
    processed.length ? `Preprocessed data (read with the file tools by name):\n${processed.join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

function describeProcessed(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const facts = ['rows', 'columns', 'pages', 'chars', 'summary', 'title', 'error']
      .filter((k) => v[k] !== undefined && v[k] !== null)
      .map((k) => `${k} ${typeof v[k] === 'string' ? v[k] : JSON.stringify(v[k])}`);
    if (facts.length) {
      return facts.join(', ');
    }
    return `fields ${Object.keys(v).slice(0, 10).join(', ')}`;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The tenant's collections, so the planner can choose `retrieval` and name the right ones. */
export function collectionsCatalogue(collections: readonly CollectionEntry[]): string {
  if (collections.length === 0) {
    return '';
  }
  const lines = collections
    .slice(0, MAX_COLLECTIONS)
    .map((c) => `- ${cut(oneLine(c.name), 200)} (id ${c.id}, ${c.documents} document(s))`);
  if (collections.length > MAX_COLLECTIONS) {
    lines.push(`- … and ${collections.length - MAX_COLLECTIONS} more`);
  }
  return `Knowledge collections the retrieval tool can search (data_source: [{"id": "<id>"}]):\n${lines.join('\n')}`;
}

/**
 * chat_history ends with the current prompt (the start action adds it): the messages before it,
 * newest first into the budget; a message that does not fit whole ends the window.
 */
export function earlierConversation(
  history: readonly ChatMessage[],
  prompt: string,
  budgetChars: number,
): { history: ChatMessage[]; omitted: number } {
  const last = history[history.length - 1];
  const earlier = last?.role === 'user' && last.content === prompt ? history.slice(0, -1) : history;
  const kept: ChatMessage[] = [];
  let used = 0;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const content = cut(earlier[i].content, 4 * ITEM_MAX_CHARS);
    if (used + content.length > budgetChars) {
      break;
    }
    used += content.length;
    kept.unshift({ role: earlier[i].role, content });
  }
  // Start with a user message: an answer without its question reads as out of place.
  while (kept.length && kept[0].role !== 'user') {
    kept.shift();
  }
  return { history: kept, omitted: earlier.length - kept.length };
}
