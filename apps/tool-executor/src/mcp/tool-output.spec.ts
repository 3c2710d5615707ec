import { capToolOutput, resultText, truncateUtf8 } from './tool-output';

describe('MCP tool output capping', () => {
  it('keeps output within the budget whole', () => {
    const out = capToolOutput(
      { content: [{ type: 'text', text: 'hello' }], structuredContent: { a: 1 } },
      100,
    );
    expect(out).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      structured_content: { a: 1 },
      truncated: false,
      bytes: 5 + 7,
    });
  });

  it('cuts text at the byte budget without splitting a character and leaves later blocks out', () => {
    const out = capToolOutput(
      {
        content: [
          { type: 'text', text: 'ab€€' }, // 2 + 3 + 3 bytes
          { type: 'text', text: 'more' },
        ],
      },
      6,
    );
    expect(out.content).toEqual([{ type: 'text', text: 'ab€' }]);
    expect(out.truncated).toBe(true);
    expect(out.bytes).toBe(12);
  });

  it('drops binary data that does not fit and notes its size; keeps what fits', () => {
    const out = capToolOutput(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: 'A'.repeat(50) },
          { type: 'image', mimeType: 'image/png', data: 'B'.repeat(10) },
          { type: 'resource', resource: { uri: 'file:///x', mimeType: 'text/plain', text: 'resource text' } },
          { type: 'resource_link', uri: 'file:///y', name: 'y' },
          { type: 'weird' },
        ],
        structuredContent: { big: 'z'.repeat(100) },
      },
      40,
    );
    expect(out.content[0]).toEqual({ type: 'image', mimeType: 'image/png', omitted_bytes: 50 });
    expect(out.content[1]).toEqual({ type: 'image', mimeType: 'image/png', data: 'B'.repeat(10) });
    expect(out.content[2]).toEqual({
      type: 'resource',
      uri: 'file:///x',
      mimeType: 'text/plain',
      text: 'resource text',
    });
    expect(out.content.length).toBe(3); // the budget ran out before the link
    expect(out.structured_content).toBeUndefined();
    expect(out.truncated).toBe(true);
  });

  it('joins the text of an error result, capped', () => {
    expect(
      resultText(
        { content: [{ type: 'text', text: 'bad' }, { type: 'image' }, { type: 'text', text: 'worse' }] },
        100,
      ),
    ).toBe('bad\nworse');
    expect(truncateUtf8('€€', 4)).toBe('€');
    expect(truncateUtf8('abc', 0)).toBe('');
  });
});
