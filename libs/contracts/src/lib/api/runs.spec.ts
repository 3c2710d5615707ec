import { CreateRunSchema } from './runs';

describe('POST /v1/runs body', () => {
  it('takes an optional priority, interactive or batch, and refuses any other naming the field', () => {
    const input = { prompt: 'hi' };
    expect(CreateRunSchema.parse({ input }).priority).toBeUndefined();
    expect(CreateRunSchema.parse({ input, priority: 'batch' }).priority).toBe('batch');
    expect(CreateRunSchema.parse({ input, priority: 'interactive' }).priority).toBe('interactive');
    for (const priority of ['urgent', '', 'BATCH', 1, null]) {
      const bad = CreateRunSchema.safeParse({ input, priority });
      expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['priority']);
    }
  });
});
