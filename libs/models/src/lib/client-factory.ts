import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { VendorKind } from './registry.store';

export interface ClientSpec {
  kind: VendorKind;
  model: string;
  /** Undefined: the library's default URL for the vendor. */
  baseUrl?: string;
  /** Undefined only for a keyless Ollama server. */
  apiKey?: string;
  temperature: number;
  timeoutMs: number;
}

/**
 * The concrete langchain client for one vendor kind, model and key. Their own retries are off:
 * a failed call fails over to the next key instead. The vendor SDKs load on first use, so a
 * service that never talks to Anthropic or Ollama does not load them.
 */
export async function buildClient(spec: ClientSpec): Promise<BaseChatModel> {
  switch (spec.kind) {
    case 'openai': {
      const { ChatOpenAI } = await import('@langchain/openai');
      return new ChatOpenAI({
        model: spec.model,
        apiKey: spec.apiKey ?? 'none',
        configuration: spec.baseUrl ? { baseURL: spec.baseUrl } : undefined,
        timeout: spec.timeoutMs,
        maxRetries: 0,
        streamUsage: true,
        temperature: spec.temperature,
      });
    }
    case 'anthropic': {
      const { ChatAnthropic } = await import('@langchain/anthropic');
      return new ChatAnthropic({
        model: spec.model,
        apiKey: spec.apiKey,
        ...(spec.baseUrl ? { anthropicApiUrl: spec.baseUrl } : {}),
        maxRetries: 0,
        streamUsage: true,
        temperature: spec.temperature,
        clientOptions: { timeout: spec.timeoutMs },
      });
    }
    case 'ollama': {
      const { ChatOllama } = await import('@langchain/ollama');
      return new ChatOllama({
        model: spec.model,
        ...(spec.baseUrl ? { baseUrl: spec.baseUrl } : {}),
        temperature: spec.temperature,
        ...(spec.apiKey ? { headers: { Authorization: `Bearer ${spec.apiKey}` } } : {}),
      });
    }
  }
}
