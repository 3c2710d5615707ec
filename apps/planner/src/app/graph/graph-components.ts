import { Inject, Injectable } from '@nestjs/common';
import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { RunPriority, Usage } from '@switchyard/contracts';
import {
  type Canvas,
  CategorizeParamsSchema,
  type ComponentOutcome,
  GraphErrorCode,
  GraphException,
  type NormalizedComponent,
  SwitchParamsSchema,
  type VariableScope,
  aggregateVariables,
  assignVariables,
  dataOperations,
  listOperations,
  iterationItemStep,
  iterationItems,
  loopEnded,
  loopVariables,
  beginOutputs,
  stringMerge,
  stringSplit,
  userFillUpInputSchema,
  userFillUpOutputs,
  userFillUpTips,
  canvasHistory,
  historyAtTurnStart,
  historyWindow,
  categorizeSystemPrompt,
  categorizeUserPrompt,
  evaluateSwitch,
  getVariableValue,
  pickCategory,
  templateSegments,
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
import { YahooFinanceComponent } from './components/yahoo-finance.component';

/** What a component's code gets: its canvas, its definition, the variables, the run's input. */
export interface ComponentContext {
  canvas: Canvas;
  component: NormalizedComponent;
  scope: VariableScope;
  /** The turn's prompt (`sys.query`). */
  prompt: string;
  /** The run's tenant (whose collections a Retrieval searches, whose provider keys a tool uses) and the run. */
  tenantId: string;
  runId: string;
  /** The run's priority within its tenant (sent with tool calls, which are answered fairly). */
  priority?: RunPriority;
  /** The task running the component (a file it makes is kept once per task). */
  taskId: string;
  /** The canvas state has not been opened yet (the thread's first graph turn). */
  firstTurn: boolean;
  signal: AbortSignal;
  emitToken: (text: string) => Promise<void>;
  /** The components that ran in this turn so far, in order (paused and skipped ones left out). */
  ran: readonly string[];
  /** How often this run was resumed so far (answers to paused forms). */
  resumes: number;
  /** The run's inputs of Begin's form. */
  inputs?: Record<string, unknown>;
  /** A UserFillUp resumed: the user's answer to its form. */
  answer?: Record<string, unknown>;
  /** Begin of a later turn: the outputs of the component that ended the previous turn, if it finished. */
  previousAnswer?: Record<string, unknown>;
}

/** What a component did: its outputs, new variable values, routing and usage. */
export interface ComponentEffect {
  outputs: Record<string, unknown>;
  /** The canvas variables after the component (only Begin and VariableAssigner change them). */
  globals?: Record<string, unknown>;
  outcome?: ComponentOutcome;
  usage?: Usage;
  summary: string;
  /** A Message's text as streamed when it differs from its `content` (an Agent's tool notes). */
  streamed?: string;
  /** A UserFillUp waits for its form: the run pauses on `ask_user` and resumes at the component. */
  pause?: { question: string; input_schema: Record<string, unknown> };
}

const CHAT_ROLE = 'graph';

/** The default value of a canvas variable's type (RAGFlow `Canvas.reset`). */
function typeDefault(type: string | null | undefined): unknown {
  const t = (type ?? '').toLowerCase();
  if (t === 'number') {
    return 0;
  }
  if (t === 'boolean') {
    return false;
  }
  if (t === 'object') {
    return {};
  }
  return t.startsWith('array') ? [] : '';
}

const sysDate = (): string => new Date().toISOString().replace('T', ' ').slice(0, 19);

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
  ) {}

  async run(ctx: ComponentContext): Promise<ComponentEffect> {
    switch (ctx.component.name) {
      case 'Begin':
        return this.begin(ctx);
      case 'Message':
        return this.message(ctx);
      case 'Switch':
        return this.switch(ctx);
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
      case 'VariableAssigner': {
        const assigned = assignVariables(ctx.scope, ctx.component.params);
        // Writes to another component's outputs are not allowed by the state's ownership rule.
        const foreign = Object.keys(assigned.outputs).filter(
          (id) => assigned.outputs[id] !== ctx.scope.outputs[id] && id !== ctx.component.id,
        );
        if (foreign.length) {
          throw new GraphException(
            GraphErrorCode.ComponentFailed,
            `a VariableAssigner may set canvas variables only, not outputs of ${foreign.join(', ')}`,
          );
        }
        return { outputs: {}, globals: assigned.globals, summary: 'VariableAssigner: variables set' };
      }
      case 'Iteration':
        return {
          outputs: {},
          summary: `Iteration over ${iterationItems(ctx.scope, ctx.component.id).length} items`,
        };
      case 'IterationItem': {
        // This run's visits since its Iteration last started (an earlier run's state is not counted).
        const parentAt = ctx.ran.lastIndexOf(ctx.component.parentId ?? '');
        const visit = ctx.ran.slice(parentAt + 1).filter((id) => id === ctx.component.id).length;
        const step = iterationItemStep(ctx.scope, ctx.component.id, visit);
        return {
          outputs: step.outputs,
          outcome: { ended: step.ended },
          summary: step.ended ? 'IterationItem: no item left' : `IterationItem: item ${visit}`,
        };
      }
      case 'Loop':
        return { outputs: loopVariables(ctx.scope, ctx.component.params), summary: 'Loop: starting' };
      case 'LoopItem': {
        const loop = ctx.canvas.components[ctx.component.parentId ?? ''];
        const parentAt = ctx.ran.lastIndexOf(loop?.id ?? '');
        const visit = ctx.ran.slice(parentAt + 1).filter((id) => id === ctx.component.id).length;
        const ended = loopEnded(ctx.scope, loop?.params ?? {}, visit);
        return {
          outputs: { index: visit },
          outcome: { ended },
          summary: ended ? 'LoopItem: the loop is over' : `LoopItem: turn ${visit + 1}`,
        };
      }
      case 'ExitLoop':
        return { outputs: {}, summary: 'ExitLoop: leaving the loop' };
      case 'VariableAggregator':
        return {
          outputs: aggregateVariables(ctx.scope, ctx.component.params),
          summary: 'VariableAggregator',
        };
      case 'StringTransform': {
        const method = ctx.component.params['method'] ?? 'split';
        const result =
          method === 'merge'
            ? stringMerge(ctx.scope, ctx.component.params)
            : stringSplit(ctx.scope, ctx.component.params);
        return { outputs: { result }, summary: `StringTransform ${String(method)}` };
      }
      case 'DataOperations':
        return { outputs: dataOperations(ctx.scope, ctx.component.params), summary: 'DataOperations' };
      case 'ListOperations': {
        const outputs = listOperations(ctx.scope, ctx.component.params);
        return { outputs, summary: `ListOperations: ${outputs.result.length} items` };
      }
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
        throw new GraphException(
          GraphErrorCode.ComponentFailed,
          `the ${ctx.component.name} component cannot run here yet`,
        );
    }
  }

  /** Opens the turn: `sys.*` from the run, `env.*` from the canvas variables on the first turn. */
  private begin(ctx: ComponentContext): ComponentEffect {
    const globals: Record<string, unknown> = ctx.firstTurn
      ? {
          'sys.query': '',
          'sys.user_id': '',
          'sys.conversation_turns': 0,
          'sys.files': [],
          'sys.history': [],
          ...ctx.canvas.globals,
          ...Object.fromEntries(
            Object.entries(ctx.canvas.variables).map(([k, v]) => [
              `env.${k}`,
              v.value ?? typeDefault(v.type),
            ]),
          ),
        }
      : { ...ctx.scope.globals };
    globals['sys.query'] = ctx.prompt;
    globals['sys.date'] = sysDate();
    globals['sys.conversation_turns'] = Number(globals['sys.conversation_turns'] ?? 0) + 1;
    const outputs = beginOutputs(ctx.component.params, ctx.inputs, ctx.prompt);
    return {
      outputs,
      globals: historyAtTurnStart(globals, ctx.prompt, ctx.previousAnswer),
      summary: 'Begin: the canvas is open for this turn',
    };
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

  private switch(ctx: ComponentContext): ComponentEffect {
    const decision = evaluateSwitch(ctx.scope, SwitchParamsSchema.parse(ctx.component.params));
    return {
      outputs: { _next: decision.next },
      outcome: { next: decision.next },
      summary:
        decision.matched < 0
          ? `Switch: no condition matched → ${decision.next.join(', ')}`
          : `Switch: condition ${decision.matched + 1} matched → ${decision.next.join(', ')}`,
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
