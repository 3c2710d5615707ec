import { canvasHistory, historyWindow } from './canvas-history';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CategorizeParams,
  categorizeSystemPrompt,
  categorizeUserPrompt,
  pickCategory,
} from './categorize';
import { parseCanvas } from './normalize-dsl';

const FIXTURES = join(__dirname, '../../fixtures');
const golden = (scenario: string) =>
  JSON.parse(readFileSync(join(FIXTURES, 'expected', `questions_category.${scenario}.json`), 'utf8')) as {
    inputs: { scripted_llm: { reply: string }[] };
    path: string[];
    llm: { messages: { role: string; content: string }[] }[];
  };
const canvas = parseCanvas(
  JSON.parse(readFileSync(join(FIXTURES, 'ragflow', 'questions_category.json'), 'utf8')),
);
const params = canvas.components['Categorize:TamePartsLook'].params as CategorizeParams;

describe(pickCategory.name, () => {
  it.each(['casual', 'complain', 'fallback', 'tie'])(
    'questions_category.%s routes as RAGFlow did',
    (scenario) => {
      const g = golden(scenario);
      expect(pickCategory(params, g.inputs.scripted_llm[0].reply).next).toEqual([g.path[2]]);
    },
  );

  const three: CategorizeParams = {
    category_description: {
      up: { to: ['ToUp'] },
      down: { to: ['ToDown'] },
      'Negative review ': { to: ['ToN'] },
    },
  };
  it.each([
    ['down down up', 'down', ['ToDown']],
    ['UP or DOWN: a tie goes to the first declared', 'up', ['ToUp']],
    ['no name at all', 'Negative review ', ['ToN']],
    ['negative review  then negative review ', 'Negative review ', ['ToN']],
    ['negative review (no trailing space: no category named)', 'Negative review ', ['ToN']],
  ])('%j → %s', (answer, category, next) => {
    expect(pickCategory(three, answer)).toEqual({ category, next });
  });
});

describe(categorizeSystemPrompt.name, () => {
  it.each(['casual', 'complain', 'tie'])('builds the prompts RAGFlow sent (%s)', (scenario) => {
    const [system, user] = golden(scenario).llm[0].messages;
    expect(categorizeSystemPrompt(params)).toBe(system.content);
    expect(categorizeUserPrompt([{ role: 'user', content: 'x' }], 'How are you doing?')).toBe(user.content);
  });

  it.each([
    [[], 'q', '\n---- Real Data ----\nUSER: "q" →\n'],
    [
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b\nc' },
        { role: 'user', content: '' },
      ],
      'q\nq',
      '\n---- Real Data ----\nUSER: "a" | ASSISTANT: "bc" | USER: "qq" →\n',
    ],
    [[{ role: 'user', content: 'old' }], '', '\n---- Real Data ----\nUSER: "" →\n'],
  ])('user prompt over a history window %#', (history, query, prompt) => {
    expect(categorizeUserPrompt(history, query)).toBe(prompt);
  });

  it('leaves out the examples block when there are no examples', () => {
    expect(
      categorizeSystemPrompt({ category_description: { A: { to: ['x'], description: 'd' } } }),
    ).not.toContain('Examples');
  });
});

describe("Categorize's history window (canvas history → get_history)", () => {
  it.each([
    [['user: How are you doing?'], 0, 1, [{ role: 'user', content: 'How are you doing?' }]],
    // all.categorize: "hi", then two forms sent → the window of 1 turn is the two empty entries
    [
      ['user: hi'],
      2,
      1,
      [
        { role: 'user', content: '' },
        { role: 'user', content: '' },
      ],
    ],
    [
      ['user: a', 'assistant: b: c', 'user: d'],
      0,
      1,
      [
        { role: 'assistant', content: 'b: c' },
        { role: 'user', content: 'd' },
      ],
    ],
    [['user: a'], 0, 0, []],
  ])('%j with %d resumes, window %d → %j', (lines, resumes, window, entries) => {
    expect(historyWindow(canvasHistory({ 'sys.history': lines }), resumes, window)).toEqual(entries);
  });
});
