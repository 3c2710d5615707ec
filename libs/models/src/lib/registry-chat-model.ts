import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import { type LlmCallContext, currentLlmCallContext } from './llm-call-context';
import type { CallTarget, ModelRouter } from './model-router';
import type { ParserSpec } from './registry.store';
import { usageOf } from './usage';

export interface RegistryChatCallOptions extends BaseChatModelCallOptions {
  /** Set by `bindTools`; each concrete client converts them to its vendor's format. */
  tools?: BindToolsInput[];
}

/**
 * A langchain chat model backed by the model registry: each call resolves the model for its role
 * (the run's pinned agent model, else the default), picks a key, calls the vendor's own langchain
 * client with it, fails over to the next key when that one is rate limited, refused or down, and
 * meters the successful call (model_usage + tenants.tokens_used). Supports invoke, stream and
 * bindTools, so callers use it like any chat model.
 */
export class RegistryChatModel extends BaseChatModel<RegistryChatCallOptions, AIMessageChunk> {
  constructor(
    private readonly router: ModelRouter,
    readonly role: string | undefined,
    readonly temperature: number,
    /** The context when the model was made; the call's own context wins when there is one. */
    private readonly madeIn: LlmCallContext | undefined,
  ) {
    super({});
  }

  _llmType(): string {
    return 'switchyard-registry';
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<RegistryChatCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, RegistryChatCallOptions> {
    return this.withConfig({ tools, ...kwargs });
  }

  /** The model this role resolves to for the current call context. */
  target(): Promise<CallTarget> {
    const ctx = currentLlmCallContext() ?? this.madeIn;
    return this.router.resolve(this.role ?? ctx?.node, ctx);
  }

  /** The registry's reply parser for this model and role, if it sets one. */
  async parser(): Promise<ParserSpec | undefined> {
    return this.router.parserFor(await this.target());
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const { tools, tool_choice, ...rest } = options;
    const failover = await this.router.begin(await this.target(), this.temperature, options.signal);
    for (;;) {
      const lease = await failover.next();
      try {
        const client = tools?.length
          ? lease.client.bindTools!(tools, tool_choice !== undefined ? { tool_choice } : {})
          : lease.client;
        const message = (await client.invoke(messages, rest)) as AIMessageChunk;
        await failover.succeeded(lease, usageOf(message));
        const text = typeof message.content === 'string' ? message.content : '';
        return { generations: [{ text, message }] };
      } catch (err) {
        await failover.failed(lease, err);
      }
    }
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { tools, tool_choice, ...rest } = options;
    const failover = await this.router.begin(await this.target(), this.temperature, options.signal);
    for (;;) {
      const lease = await failover.next();
      let started = false;
      let all: AIMessageChunk | undefined;
      try {
        const client = tools?.length
          ? lease.client.bindTools!(tools, tool_choice !== undefined ? { tool_choice } : {})
          : lease.client;
        const stream = await client.stream(messages, rest);
        for await (const chunk of stream as AsyncIterable<AIMessageChunk>) {
          started = true;
          all = all ? all.concat(chunk) : chunk;
          const text = typeof chunk.content === 'string' ? chunk.content : '';
          yield new ChatGenerationChunk({ text, message: chunk });
          await runManager?.handleLLMNewToken(text);
        }
        await failover.succeeded(lease, usageOf(all));
        return;
      } catch (err) {
        if (started) {
          // Tokens already went out: another key would repeat them.
          throw failover.fatal(lease, err);
        }
        await failover.failed(lease, err);
      }
    }
  }
}
