import { ParserSchema, jsonSchemaProblem } from './parser.schema';

describe('ParserSchema', () => {
  const answer = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

  it('accepts schemas per role and for every role', () => {
    const parsed = ParserSchema.safeParse({
      planner: { schema: answer, max_retries: 3 },
      '*': { schema: { type: 'object' }, max_retries: 0 },
    });
    expect(parsed.success).toBe(true);
  });

  it('names the role whose schema does not compile', () => {
    const parsed = ParserSchema.safeParse({
      output: { schema: answer, max_retries: 1 },
      planner: { schema: { type: 'objekt' }, max_retries: 1 },
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error?.issues ?? [];
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toEqual(['planner', 'schema']);
    expect(issues[0].message).toMatch(/role "planner" is not a valid JSON Schema/);
  });

  it('refuses bad retry counts, unknown fields, odd role names and an empty parser', () => {
    const fields = (v: unknown) =>
      ParserSchema.safeParse(v).error?.issues.map((i) => i.path.join('.')) ?? ['(valid)'];
    expect(fields({ planner: { schema: answer, max_retries: 21 } })).toEqual(['planner.max_retries']);
    expect(fields({ planner: { schema: answer, max_retries: -1 } })).toEqual(['planner.max_retries']);
    expect(fields({ planner: { schema: answer, max_retries: 1.5 } })).toEqual(['planner.max_retries']);
    expect(fields({ planner: { schema: answer } })).toEqual(['planner.max_retries']);
    expect(fields({ planner: { schema: answer, max_retries: 1, extra: true } })).toEqual(['planner']);
    expect(fields({ 'Planner!': { schema: answer, max_retries: 1 } })).toEqual(['Planner!']);
    expect(fields({})).toEqual(['']);
  });

  it('tells why a schema does not compile', () => {
    expect(jsonSchemaProblem(answer)).toBeUndefined();
    expect(jsonSchemaProblem({ type: 'object', required: 'answer' })).toMatch(/required/);
    expect(jsonSchemaProblem({ $ref: '#/definitions/missing' })).toMatch(/missing/);
  });
});
