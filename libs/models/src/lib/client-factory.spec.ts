import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOllama } from '@langchain/ollama';
import { ChatOpenAI } from '@langchain/openai';
import { buildClient } from './client-factory';

describe(buildClient.name, () => {
  const base = { model: 'm', temperature: 0, timeoutMs: 5_000 };

  it('builds the langchain client of each vendor kind, with its own retries off', async () => {
    const openai = await buildClient({ ...base, kind: 'openai', apiKey: 'k', baseUrl: 'http://h/v1' });
    expect(openai).toBeInstanceOf(ChatOpenAI);
    expect((openai as ChatOpenAI).model).toBe('m');
    const anthropic = await buildClient({ ...base, kind: 'anthropic', apiKey: 'k', baseUrl: 'http://a' });
    expect(anthropic).toBeInstanceOf(ChatAnthropic);
    expect((anthropic as unknown as { apiUrl: string }).apiUrl).toBe('http://a');
    const ollama = await buildClient({ ...base, kind: 'ollama', baseUrl: 'http://o:11434' });
    expect(ollama).toBeInstanceOf(ChatOllama);
    expect((ollama as ChatOllama).baseUrl).toBe('http://o:11434');
    for (const c of [openai, anthropic]) {
      expect((c as unknown as { caller: { maxRetries: number } }).caller.maxRetries).toBe(0);
    }
  });
});
