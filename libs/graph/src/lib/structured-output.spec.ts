import { structuredOutputPrompt, structuredOutputSchema } from './structured-output';

describe('structured output', () => {
  const schema = { type: 'object', properties: { age: { type: 'number' } }, required: ['age'] };

  it('finds the schema as RAGFlow does: outputs.structured, or its schema/structured member, with properties', () => {
    expect(structuredOutputSchema({ outputs: { structured: schema } })).toBe(schema);
    expect(structuredOutputSchema({ outputs: { structured: { schema } } })).toBe(schema);
    expect(structuredOutputSchema({ outputs: { structured: { structured: schema } } })).toBe(schema);
    expect(
      structuredOutputSchema({ outputs: { structured: { type: 'object', properties: {} } } }),
    ).toBeUndefined();
    expect(structuredOutputSchema({ outputs: { content: { type: 'string' } } })).toBeUndefined();
    expect(structuredOutputSchema({})).toBeUndefined();
  });

  it("renders RAGFlow's instruction with the schema as json.dumps(indent=2) prints it", () => {
    const text = structuredOutputPrompt(schema);
    expect(
      text.startsWith('You’re a helpful AI assistant. You could answer questions and output in JSON format.'),
    ).toBe(true);
    expect(text.endsWith(`Here is the JSON schema:\n    ${JSON.stringify(schema, null, 2)}`)).toBe(true);
  });
});
