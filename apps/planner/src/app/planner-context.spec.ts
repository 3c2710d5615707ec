import type { RuntimeState } from '@switchyard/contracts';
import { emptyState } from '@switchyard/state';
import { earlierConversation, plannerBackground } from './planner-context';

const THREAD = '00000000-0000-4000-8000-000000000001';
const RUN = '00000000-0000-4000-8000-000000000002';

function state(extra: Partial<RuntimeState> = {}): RuntimeState {
  return { ...emptyState(THREAD, RUN), turn: 1, prompts: ['first', 'and now?'], ...extra };
}

describe('plannerBackground', () => {
  it('is empty for a first turn with nothing known', () => {
    const bg = plannerBackground(
      { ...emptyState(THREAD, RUN), prompts: ['hi'], chat_history: [{ role: 'user', content: 'hi' }] },
      { historyTokens: 100, collections: [], retrievalOffered: true },
    );
    expect(bg).toEqual({ sections: [], history: [], omitted: 0 });
  });

  it('describes the user, recalled memory, files, preprocessed data and collections', () => {
    const bg = plannerBackground(
      state({
        user_context: { user_id: 'u1', name: 'Ada', language: 'fr' },
        memory: [{ thread_id: THREAD, turn: 0, content: 'User: my dog\nAssistant: is  Rex', score: 0.5 }],
        origin_files: [
          { name: 'q.csv', type: 'text/csv', mapping: { provider: 'local', path: '/d/q.csv' } },
          { name: 'n.txt', type: 'text/plain' },
        ],
        preprocessed_files: {
          documents: {},
          tables: { 'q.csv': { rows: 12, columns: ['a', 'b'] } },
          other_files: { 'bad.bin': { error: 'unsupported type' } },
        },
      }),
      {
        historyTokens: 100,
        retrievalOffered: true,
        collections: [{ id: 'c-1', name: 'Handbook', documents: 3 }],
      },
    );
    const text = bg.sections.join('\n\n');
    expect(text).toContain('- Name: Ada');
    expect(text).toContain('- Preferred language: fr');
    expect(text).toContain('[recalled] User: my dog Assistant: is Rex (score 0.5)');
    expect(text).toContain('- q.csv (text/csv) at /d/q.csv');
    expect(text).toContain('- n.txt (text/plain)');
    expect(text).toContain('- table q.csv: rows 12, columns ["a","b"]');
    expect(text).toContain('- other file bad.bin: error unsupported type');
    expect(text).toContain('- Handbook (id c-1, 3 document(s))');
  });

  it('lists collections only when retrieval is offered', () => {
    const bg = plannerBackground(state(), {
      historyTokens: 100,
      retrievalOffered: false,
      collections: [{ id: 'c-1', name: 'Handbook', documents: 3 }],
    });
    expect(bg.sections.join('\n')).not.toContain('Handbook');
  });

  it('keeps the newest earlier messages within the budget and says how many were left out', () => {
    const chat = [
      { role: 'user' as const, content: 'a'.repeat(40) },
      { role: 'assistant' as const, content: 'b'.repeat(40) },
      { role: 'user' as const, content: 'c'.repeat(40) },
      { role: 'assistant' as const, content: 'd'.repeat(40) },
      { role: 'user' as const, content: 'and now?' },
    ];
    // 25 tokens = 100 characters: the last two earlier messages fit, not a third.
    const bg = plannerBackground(state({ chat_history: chat }), {
      historyTokens: 25,
      collections: [],
      retrievalOffered: false,
    });
    expect(bg.history).toEqual([chat[2], chat[3]]);
    expect(bg.omitted).toBe(2);
    expect(bg.sections.join('\n')).toContain('2 earlier message(s) of this conversation are left out');
  });

  it('never starts the window with an answer whose question was dropped', () => {
    const chat = [
      { role: 'user' as const, content: 'q'.repeat(80) },
      { role: 'assistant' as const, content: 'a'.repeat(10) },
      { role: 'user' as const, content: 'now' },
    ];
    expect(earlierConversation(chat, 'now', 50)).toEqual({ history: [], omitted: 2 });
    expect(earlierConversation(chat, 'now', 1_000)).toEqual({ history: chat.slice(0, 2), omitted: 0 });
  });
});

describe('dataCatalogue', () => {
  const action = (id: number, node: string, result: unknown) =>
    ({
      id,
      node,
      summary: '',
      preparation: '',
      result,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      next: [],
      started_at: '2026-01-01T00:00:00.000Z',
      finished_at: '2026-01-01T00:00:00.000Z',
      attempt: 1,
    }) as unknown as RuntimeState['action_history'][number][number];
  const kept = (ref: string) => ({
    preview: {},
    output_truncated: true,
    output_bytes: 523_402,
    output_shape: '{columns: array(2) of string, rows: array(5000) of array(2)}',
    reference: `tool-output:${ref}`,
  });
  const ref1 = '00000000-0000-4000-8000-00000000000a';
  const ref2 = '00000000-0000-4000-8000-00000000000b';
  const withKept = state({
    action_history: [
      [action(3, 'sql_query', kept(ref1))],
      [action(7, 'calculator', { value: 2 }), action(9, 'http_get', kept(ref2))],
    ],
  });

  it("lists the thread's outputs kept whole, newest first, with size and shape, when the tool is offered", () => {
    const bg = plannerBackground(withKept, {
      historyTokens: 100,
      collections: [],
      retrievalOffered: false,
      extractOffered: true,
    });
    const section = bg.sections.find((s) => s.startsWith('Data kept whole'));
    expect(section?.split('\n').slice(1)).toEqual([
      `- action #9 (http_get): tool-output:${ref2} — 523402 bytes, {columns: array(2) of string, rows: array(5000) of array(2)}`,
      `- action #3 (sql_query, turn 1): tool-output:${ref1} — 523402 bytes, {columns: array(2) of string, rows: array(5000) of array(2)}`,
    ]);
    expect(section).toContain('extract_data_by_path {reference, path}');
  });

  it('says nothing when the tool is not offered, or nothing was kept', () => {
    const off = plannerBackground(withKept, { historyTokens: 100, collections: [], retrievalOffered: false });
    expect(off.sections.some((s) => s.startsWith('Data kept whole'))).toBe(false);
    const none = plannerBackground(state(), {
      historyTokens: 100,
      collections: [],
      retrievalOffered: false,
      extractOffered: true,
    });
    expect(none.sections.some((s) => s.startsWith('Data kept whole'))).toBe(false);
  });
});
