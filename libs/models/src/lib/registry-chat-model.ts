import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { type AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import { bindingKey, boundOnce } from './bound-client';
import { type LlmCallContext, currentLlmCallContext } from './llm-call-context';
import type { CallTarget, ModelRouter } from './model-router';
import type { ParserSpec } from './registry.store';
import {
  type StructuredRequest,
  type StructuredUse,
  bindStructured,
  withPromptInstruction,
} from './structured-binding';
import { usageOf } from './usage';

export interface RegistryChatCallOptions extends BaseChatModelCallOptions {
  /** Set by `bindTools`; each concrete client converts them to its vendor's format. */
  tools?: BindToolsInput[];
  /**
   * Set by `invokeStructured`: the reply must match this schema, asked for the way the serving
   * model declares (`structured_output`); the reply carries how on `additional_kwargs.structured_output`.
   */
  structured?: StructuredRequest;
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
    /** A model the caller names itself, used when the registry has it (ModelRouter.resolve). */
    readonly preferred?: string,
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
    return this.router.resolve(this.role ?? ctx?.node, ctx, this.preferred);
  }

  /** The registry's reply parser for this model and role, if it sets one. */
  async parser(): Promise<ParserSpec | undefined> {
    return this.router.parserFor(await this.target());
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const { tools, tool_choice, structured, ...rest } = options;
    const target = await this.target();
    const mode = structured ? this.router.structuredOutputOf(target) : undefined;
    const sent =
      structured && mode === 'prompt' ? withPromptInstruction(messages, structured.instruction) : messages;
    const failover = await this.router.begin(target, this.temperature, options.signal);
    for (;;) {
      const lease = await failover.next();
      try {
        let message: AIMessage;
        let use: StructuredUse | undefined = mode === 'prompt' ? { mode, strict: false } : undefined;
        if (structured && mode && mode !== 'prompt') {
          const kind = target.vendor.kind;
          const bound = boundOnce(
            lease.client,
            bindingKey([
              'structured',
              kind,
              mode,
              structured.name,
              structured.schema,
              structured.strictSchema,
            ]),
            () => bindStructured(lease.client, kind, mode, structured),
          );
          use = bound.use;
          message =
            bound.reply === 'message'
              ? await bound.runnable.invoke(sent, rest)
              : (await bound.runnable.invoke(sent, rest)).raw;
        } else {
          message = (await withTools(lease.client, tools, tool_choice).invoke(sent, rest)) as AIMessage;
        }
        await failover.succeeded(lease, usageOf(message));
        if (use) {
          message.additional_kwargs = { ...message.additional_kwargs, structured_output: use };
        }
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
    if (options.structured) {
      // A structured reply is only useful whole: one call, one chunk.
      const [generation] = (await this._generate(messages, options)).generations;
      const m = generation.message as AIMessage;
      yield new ChatGenerationChunk({
        text: generation.text,
        message: new AIMessageChunk({
          content: m.content,
          tool_calls: m.tool_calls,
          usage_metadata: m.usage_metadata,
          additional_kwargs: m.additional_kwargs,
          response_metadata: m.response_metadata,
        }),
      });
      return;
    }
    const { tools, tool_choice, structured: _structured, ...rest } = options;
    const failover = await this.router.begin(await this.target(), this.temperature, options.signal);
    for (;;) {
      const lease = await failover.next();
      let started = false;
      let all: AIMessageChunk | undefined;
      try {
        const stream = await withTools(lease.client, tools, tool_choice).stream(messages, rest);
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

/** The client with the call's tools bound, once per client and tool set (see `boundOnce`). */
function withTools(
  client: BaseChatModel,
  tools: BindToolsInput[] | undefined,
  toolChoice: RegistryChatCallOptions['tool_choice'],
): Pick<BaseChatModel, 'invoke' | 'stream'> {
  if (!tools?.length) {
    return client;
  }
  return boundOnce(client, bindingKey(['tools', tools, toolChoice ?? null]), () =>
    client.bindTools!(tools, toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
  );
}
