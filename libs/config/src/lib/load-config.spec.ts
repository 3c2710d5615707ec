import { ConfigException, llmEnvSchema, loadConfig } from './load-config';

describe('SWITCHYARD_LLM_STRUCTURED_OUTPUT', () => {
  it.each(['json_schema', 'tool_call', 'prompt'] as const)('accepts %s', (mode) => {
    expect(
      loadConfig(llmEnvSchema, { SWITCHYARD_LLM_STRUCTURED_OUTPUT: mode }).SWITCHYARD_LLM_STRUCTURED_OUTPUT,
    ).toBe(mode);
  });

  it('is optional (the registry row, or the vendor kind, decides)', () => {
    expect(loadConfig(llmEnvSchema, {}).SWITCHYARD_LLM_STRUCTURED_OUTPUT).toBeUndefined();
  });

  it('stops start-up with a message naming the variable, the value and the choices', () => {
    const err = (() => {
      try {
        loadConfig(llmEnvSchema, { SWITCHYARD_LLM_STRUCTURED_OUTPUT: 'xml' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ConfigException);
    expect((err as Error).message).toContain(
      'SWITCHYARD_LLM_STRUCTURED_OUTPUT ("xml"): must be one of json_schema, tool_call, prompt',
    );
  });
});
