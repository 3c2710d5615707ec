import { llmRetryPolicy, llmRetryProblem } from './llm-retry';

describe(llmRetryPolicy.name, () => {
  it.each([
    [{}, undefined],
    [
      { max_retries: 3, delay_after_error: 1 },
      { attempts: 4, delayMs: 1000 },
    ],
    [{ max_retries: 0 }, { attempts: 1, delayMs: 2000 }],
    [
      { max_retries: 2, delay_after_error: 0.25 },
      { attempts: 3, delayMs: 250 },
    ],
  ])('reads %j as %j (an absolute count of calls)', (params, policy) => {
    expect(llmRetryPolicy(params)).toEqual(policy);
  });
});

describe(llmRetryProblem.name, () => {
  it.each([
    [{ max_retries: -1 }, 'max_retries'],
    [{ max_retries: 1.5 }, 'max_retries'],
    [{ max_retries: '3' }, 'max_retries'],
    [{ delay_after_error: -1 }, 'delay_after_error'],
    [{ delay_after_error: 601 }, 'delay_after_error'],
  ])('refuses %j naming %s', (params, field) => {
    expect(llmRetryProblem(params)?.field).toBe(field);
  });

  it('accepts what RAGFlow editors write', () => {
    expect(llmRetryProblem({ max_retries: 3, delay_after_error: 1 })).toBeUndefined();
    expect(llmRetryProblem({})).toBeUndefined();
  });
});
