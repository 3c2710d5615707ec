import {
  DEFAULT_COMPONENT_TIMEOUT_MS,
  componentTimeoutMs,
  parseComponentTimeouts,
} from './component-timeout';

describe(componentTimeoutMs.name, () => {
  const timeouts = parseComponentTimeouts({
    SWITCHYARD_GRAPH_TIMEOUT_TAVILYSEARCH_MS: '500',
    SWITCHYARD_GRAPH_TIMEOUT_MS: '2000',
  });

  it.each([
    ['TavilySearch', 500, 'its own variable wins over the table'],
    ['YahooFinance', 60_000, 'the per-class table wins over the uniform variable'],
    ['DataOperations', 2000, 'the uniform variable for a class not in the table'],
  ])('%s → %d ms (%s)', (component, ms) => {
    expect(componentTimeoutMs(component, timeouts)).toBe(ms);
  });

  it('falls back to 600 s', () => {
    expect(componentTimeoutMs('DataOperations', parseComponentTimeouts({}))).toBe(
      DEFAULT_COMPONENT_TIMEOUT_MS,
    );
    expect(DEFAULT_COMPONENT_TIMEOUT_MS).toBe(600_000);
  });
});

describe(parseComponentTimeouts.name, () => {
  it.each([
    [{ SWITCHYARD_GRAPH_TIMEOUT_MS: '0' }, 'SWITCHYARD_GRAPH_TIMEOUT_MS must be a positive whole number'],
    [
      { SWITCHYARD_GRAPH_TIMEOUT_INVOKE_MS: '1.5' },
      'SWITCHYARD_GRAPH_TIMEOUT_INVOKE_MS must be a positive whole number',
    ],
    [
      { SWITCHYARD_GRAPH_TIMEOUT_NOSUCH_MS: '10' },
      'SWITCHYARD_GRAPH_TIMEOUT_NOSUCH_MS names no component class',
    ],
  ])('%j is refused naming the variable', (env, message) => {
    expect(() => parseComponentTimeouts(env)).toThrow(message);
  });
});
