import { ConfigException, baseEnvSchema, llmEnvSchema, loadConfig } from './load-config';

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

describe('SWITCHYARD_NATS_REPLICAS', () => {
  it('is 1 unless set; 3 and 5 are accepted', () => {
    expect(loadConfig(baseEnvSchema, {}).SWITCHYARD_NATS_REPLICAS).toBe(1);
    expect(loadConfig(baseEnvSchema, { SWITCHYARD_NATS_REPLICAS: '3' }).SWITCHYARD_NATS_REPLICAS).toBe(3);
    expect(loadConfig(baseEnvSchema, { SWITCHYARD_NATS_REPLICAS: '5' }).SWITCHYARD_NATS_REPLICAS).toBe(5);
  });

  it.each(['2', '0', 'three', '3.5'])('refuses %s, naming the variable and the choices', (value) => {
    expect(() => loadConfig(baseEnvSchema, { SWITCHYARD_NATS_REPLICAS: value })).toThrow(
      `SWITCHYARD_NATS_REPLICAS ("${value}"): must be 1, 3 or 5`,
    );
  });
});
