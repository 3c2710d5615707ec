import { normalizeBlockContent, placeholderLabels, replacePlaceholders } from './placeholders';

const inputs = [
  { blockId: '1', label: 'a', value: 'Mei' },
  { blockId: '2', label: 'b', value: ['x', 'y'] },
  { blockId: '3', label: 'c', value: { FAQ: [{ q: '' }] } },
  { blockId: '4', label: 'a', value: 'second a' },
  { blockId: '5', label: 'n', value: null },
];

describe(replacePlaceholders.name, () => {
  it.each([
    ['a placeholder in text is spliced as str()', 'Hi {{a}}!', 'Hi Mei!'],
    ['a list is spliced as Python str()', 'items: {{b}}', "items: ['x', 'y']"],
    ['a dict is spliced as Python str()', 'fmt: {{c}}', "fmt: {'FAQ': [{'q': ''}]}"],
    ['the whole text as one placeholder keeps the raw value', '{{b}}', ['x', 'y']],
    ['the first block with a label wins', '{{a}}', 'Mei'],
    ['every occurrence is replaced', '{{a}}/{{a}}', 'Mei/Mei'],
    ['None becomes an empty string in text', 'x{{n}}y', 'xy'],
    ['text without placeholders is unchanged', 'plain', 'plain'],
  ])('%s', (_name, text, expected) => {
    expect(replacePlaceholders(text, inputs)).toEqual(expected);
  });

  it('edit_text keeps a whole placeholder as text', () => {
    expect(replacePlaceholders('{{b}}', inputs, true)).toBe("['x', 'y']");
  });

  it('an unknown label fails, naming it', () => {
    expect(() => replacePlaceholders('{{zzz}}', inputs)).toThrow('Block zzz not found');
  });

  it('finds the labels of a text', () => {
    expect(placeholderLabels('{{a}} and {{-DMqB-}} {{a}}')).toEqual(['a', '-DMqB-', 'a']);
  });
});

describe(normalizeBlockContent.name, () => {
  it.each([
    ['a structured JSON text is parsed', { type: 'structured' }, '{"k": 1}', { k: 1 }],
    [
      'a list of JSON texts is parsed item by item',
      { type: 'structured', looped: true },
      ['1', 'x'],
      [1, 'x'],
    ],
    [
      'a one-item list of a block not looped is unwrapped',
      { type: 'structured' },
      [{ FAQ: [] }],
      { FAQ: [] },
    ],
    ['a looped one-item list stays a list', { type: 'structured', looped: true }, ['a b'], ['a b']],
    ['a text block is read as it is', { type: 'text' }, '{"k": 1}', '{"k": 1}'],
  ])('%s', (_name, block, content, expected) => {
    expect(normalizeBlockContent(block, content)).toEqual(expected);
  });
});
