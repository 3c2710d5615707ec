import { matchesWhen } from './script.engine';

describe('matchesWhen api_key', () => {
  const conv = (apiKey?: string) => ({ messages: [{ role: 'user', text: 'hi' }], toolNames: [], apiKey });

  it('holds only for a request carrying exactly that key', () => {
    expect(matchesWhen({ api_key: 'sk-1' }, conv('sk-1'))).toBe(true);
    expect(matchesWhen({ api_key: 'sk-1' }, conv('sk-12'))).toBe(false);
    expect(matchesWhen({ api_key: 'sk-1' }, conv())).toBe(false);
    expect(matchesWhen({}, conv())).toBe(true);
  });
});
