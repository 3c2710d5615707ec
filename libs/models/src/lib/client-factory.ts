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
      const { ChatOpenAI, ChatOpenAICompletions, wrapOpenAIClientError } = await import('@langchain/openai');
      const fields = {
        model: spec.model,
        apiKey: spec.apiKey ?? 'none',
        configuration: spec.baseUrl ? { baseURL: spec.baseUrl } : undefined,
        timeout: spec.timeoutMs,
        maxRetries: 0,
        streamUsage: true,
        temperature: spec.temperature,
      };
      /**
       * ChatOpenAI's chat-completions client, but a `json_schema` request goes through the SDK's
       * `create`, never its `parse`: `parse` throws on a reply that is not JSON, losing the reply
       * (and its usage) that a structured call feeds back to the model. (Kept by `withConfig`,
       * which builds its new ChatOpenAI from the same fields.)
       */
      class UnparsedCompletions extends ChatOpenAICompletions {
        override completionWithRetry(request: never, requestOptions?: never): Promise<never> {
          const req = request as { response_format?: { type?: string }; stream?: boolean };
          if (req.response_format?.type !== 'json_schema' || req.stream) {
            return super.completionWithRetry(request, requestOptions) as Promise<never>;
          }
          const { maxRetries, ...sdkOptions } = (requestOptions ?? {}) as { maxRetries?: number };
          const clientOptions = this._getClientOptions(sdkOptions);
          return this.caller.callWithOptions({ maxRetries }, async () => {
            try {
              return (await this.client.chat.completions.create(request, clientOptions)) as never;
            } catch (e) {
              throw wrapOpenAIClientError(e);
            }
          });
        }
      }
      return new ChatOpenAI({ ...fields, completions: new UnparsedCompletions(fields) });
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
