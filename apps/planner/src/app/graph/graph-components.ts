import { Inject, Injectable } from '@nestjs/common';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import {
  CategorizeParamsSchema,
  type ComponentContext,
  type ComponentEffect,
  GraphErrorCode,
  GraphException,
  canvasHistory,
  categorizeSystemPrompt,
  categorizeUserPrompt,
  getVariableValue,
  historyWindow,
  pickCategory,
  pureComponent,
  templateSegments,
  userFillUpInputSchema,
  userFillUpOutputs,
  userFillUpTips,
} from '@switchyard/graph';
import { ChatModels, classifyLlmError, usageOf } from '@switchyard/models';
import { AgentComponent, streamedText } from './components/agent.component';
import { RetrievalComponent } from './components/retrieval.component';
import { CodeExecComponent } from './components/code-exec';
import { ExeSqlComponent } from './components/exe-sql.component';
import { DocsGeneratorComponent } from './components/docs-generator.component';
import { ExcelProcessorComponent } from './components/excel-processor.component';
import { messageValueText } from './components/message-value';
import { InvokeComponent } from './components/invoke.component';
import { TavilySearchComponent } from './components/tavily-search.component';
import { WebToolsComponent } from './components/web-tools.component';
import { YahooFinanceComponent } from './components/yahoo-finance.component';

export type { ComponentContext, ComponentEffect } from '@switchyard/graph';

const CHAT_ROLE = 'graph';

/** The component implementations that run in this service, by RAGFlow component name. */
@Injectable()
export class GraphComponents {
  constructor(
    @Inject(ChatModels) private readonly models: ChatModels,
    @Inject(AgentComponent) private readonly agents: AgentComponent,
    @Inject(RetrievalComponent) private readonly retrieval: RetrievalComponent,
    @Inject(CodeExecComponent) private readonly codeExec: CodeExecComponent,
    @Inject(InvokeComponent) private readonly invokeComponent: InvokeComponent,
    @Inject(ExeSqlComponent) private readonly exeSql: ExeSqlComponent,
    @Inject(DocsGeneratorComponent) private readonly docsGenerator: DocsGeneratorComponent,
    @Inject(ExcelProcessorComponent) private readonly excelProcessor: ExcelProcessorComponent,
    @Inject(TavilySearchComponent) private readonly tavilySearch: TavilySearchComponent,
    @Inject(YahooFinanceComponent) private readonly yahooFinance: YahooFinanceComponent,
    @Inject(WebToolsComponent) private readonly webTools: WebToolsComponent,
  ) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    // Begin, Switch, VariableAssigner, the loops and the data components: the same code runs
    // them here and, when inline execution is on, in the orchestrator.
    const pure = pureComponent(ctx.component.name);
    if (pure) {
      return pure(ctx);
    }
    switch (ctx.component.name) {
      case 'Message':
        return this.message(ctx);
      case 'Categorize':
        return this.categorize(ctx);
      case 'LLM':
      case 'Agent':
        return this.agents.run(ctx);
      case 'Retrieval':
        return this.retrieval.run(ctx);
      case 'UserFillUp':
        return this.userFillUp(ctx);
      case 'CodeExec':
        return this.codeExec.run(ctx);
      case 'Invoke':
        return this.invokeComponent.run(ctx);
      case 'ExeSQL':
        return this.exeSql.run(ctx);
      case 'DocGenerator':
        return this.docsGenerator.run(ctx);
      case 'ExcelProcessor':
        return this.excelProcessor.run(ctx);
      case 'TavilySearch':
        return this.tavilySearch.run(ctx);
      case 'YahooFinance':
        return this.yahooFinance.run(ctx);
      default:
        if (this.webTools.has(ctx.component.name)) {
          return this.webTools.run(ctx);
        }
        throw new GraphException(
          GraphErrorCode.ComponentFailed,
          // validate-canvas refuses an unknown component on save: only a pinned canvas saved by
          // another release could name one.
          `the ${ctx.component.name} component cannot run here`,
        );
    }
  }

  /** Pauses for the form the first time; with the answer, its fields become the outputs. */
  private userFillUp(ctx: ComponentContext): ComponentEffect {
    if (ctx.answer) {
      return {
        outputs: userFillUpOutputs(ctx.component.params, ctx.answer),
        summary: 'UserFillUp: the user filled in the form',
      };
    }
    const tips = userFillUpTips(ctx.scope, ctx.component.params);
    return {
      outputs: {},
      pause: {
        question: tips || 'Please fill in the form.',
        input_schema: userFillUpInputSchema(ctx.component.params),
      },
      summary: 'UserFillUp: waiting for the user',
    };
  }

  /** Streams the rendered content: each literal piece and each reference value is a token. */
  private async message(ctx: ComponentContext): Promise<ComponentEffect> {
    const contents = ctx.component.params['content'] as string[];
    // RAGFlow picks one of the contents at random.
    const template = contents[Math.floor(Math.random() * contents.length)];
    let text = '';
    let streamed = '';
    const downloads: unknown[] = [];
    for (const segment of templateSegments(template)) {
      let piece: string;
      if ('text' in segment) {
        piece = segment.text;
      } else {
        // A made file (DocGenerator's `download`) is a download of the message, not its text.
        const value = messageValueText(getVariableValue(ctx.scope, segment.ref));
        piece = value.text;
        downloads.push(...value.downloads);
      }
      // An Agent's tool notes stream as thinking: `<think>…</think>` in the answer, not in `content`.
      const shown = ('ref' in segment ? streamedText(ctx.scope, segment.ref) : undefined) ?? piece;
      if (shown) {
        text += piece;
        streamed += shown;
        // Each tool note is a token of its own, as RAGFlow streams it.
        for (const token of shown.split(/(<think>[\s\S]*?<\/think>)/).filter(Boolean)) {
          await ctx.emitToken(token);
        }
      }
    }
    return {
      outputs: { content: text, ...(downloads.length ? { downloads } : {}) },
      ...(streamed !== text ? { streamed } : {}),
      summary: `Message: ${text.length} characters`,
    };
  }

  private async categorize(ctx: ComponentContext): Promise<ComponentEffect> {
    const params = CategorizeParamsSchema.parse(ctx.component.params);
    const query = getVariableValue(ctx.scope, params.query || 'sys.query');
    const reply = await this.invoke(
      [
        new SystemMessage(categorizeSystemPrompt(params)),
        new HumanMessage(
          categorizeUserPrompt(
            historyWindow(
              canvasHistory(ctx.scope.globals),
              ctx.resumes,
              params.message_history_window_size ?? 1,
            ),
            query === null || query === undefined ? '' : String(query),
          ),
        ),
      ],
      ctx.signal,
    );
    const answer = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
    const decision = pickCategory(params, answer);
    return {
      outputs: { category_name: decision.category, _next: decision.next },
      outcome: { next: decision.next },
      usage: usageOf(reply),
      summary: `Categorize: "${decision.category}" → ${decision.next.join(', ')}`,
    };
  }

  private async invoke(messages: BaseMessage[], signal: AbortSignal) {
    // The registry's chat model: the run's pinned model for role "graph", else the default; metered.
    return this.models
      .chat({ role: CHAT_ROLE })
      .invoke(messages, { signal })
      .catch((err: unknown) => {
        throw classifyLlmError(err);
      });
  }
}
