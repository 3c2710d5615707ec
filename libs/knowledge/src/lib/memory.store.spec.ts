import { MEMORY_TEXT_MAX, memoryText } from './memory.store';
import { pgvectorLiteral } from './vector-backend';

describe('memoryText', () => {
  it('is the prompt and the answer of the turn', () => {
    expect(memoryText(' My colour is teal. ', 'Noted.')).toBe('User: My colour is teal.\nAssistant: Noted.');
  });

  it('is the prompt alone when the turn has no answer', () => {
    expect(memoryText('Hi', null)).toBe('User: Hi');
    expect(memoryText('Hi', '  ')).toBe('User: Hi');
  });

  it('cuts long turns', () => {
    const text = memoryText('x'.repeat(10_000), 'y');
    expect(text).toHaveLength(MEMORY_TEXT_MAX);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('pgvectorLiteral', () => {
  it("is pgvector's text input", () => {
    expect(pgvectorLiteral([0.5, 0, -1])).toBe('[0.5,0,-1]');
  });
});
