import { GraphProvidersConfig } from './graph-providers.config';

describe(GraphProvidersConfig.name, () => {
  it('reads the providers, the allow-lists and the time budgets', () => {
    const c = new GraphProvidersConfig({
      SWITCHYARD_TAVILY_BASE_URL: 'http://127.0.0.1:9999/',
      SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1, provider.test',
      SWITCHYARD_INVOKE_ALLOW_HOSTS: 'intranet.local',
      SWITCHYARD_GRAPH_TIMEOUT_INVOKE_MS: '1500',
    });
    expect(c.providers.SWITCHYARD_TAVILY_BASE_URL).toBe('http://127.0.0.1:9999');
    expect(c.providers.SWITCHYARD_YAHOO_FINANCE_BASE_URL).toBe('https://query2.finance.yahoo.com');
    expect(c.providers.SWITCHYARD_PROVIDER_ALLOW_HOSTS).toEqual(['127.0.0.1', 'provider.test']);
    expect(c.invokeAllowHosts).toEqual(['intranet.local']);
    expect(c.timeouts.perClass).toEqual({ INVOKE: 1500 });
  });

  it.each([
    [{ SWITCHYARD_TAVILY_BASE_URL: 'ftp://x' }, 'SWITCHYARD_TAVILY_BASE_URL'],
    [{ SWITCHYARD_YAHOO_FINANCE_BASE_URL: 'https://u:p@yahoo.example' }, 'SWITCHYARD_YAHOO_FINANCE_BASE_URL'],
    [{ SWITCHYARD_GRAPH_TIMEOUT_MS: 'soon' }, 'SWITCHYARD_GRAPH_TIMEOUT_MS'],
    [{ SWITCHYARD_DNS_SERVERS: 'not-an-ip' }, 'SWITCHYARD_DNS_SERVERS'],
  ])('stops start-up on %j, naming the variable', (env, variable) => {
    expect(() => new GraphProvidersConfig(env)).toThrow(variable);
  });
});
