import type { z } from 'zod';
import { WEB_TOOL_COMPONENTS } from '@switchyard/contracts';
import { CategorizeParamsSchema } from './categorize';
import { DocGeneratorParamsSchema, ExcelProcessorParamsSchema } from './file-components';
import { SwitchParamsSchema } from './switch';

/** What the engine knows of one component class: one place per class, not one table per fact. */
export interface ComponentFacts {
  /** Its params, checked on save (a component without one is checked by its own rules only). */
  params?: z.ZodType;
  /** RAGFlow's `@timeout` default for the class, in ms (else the uniform default). */
  timeoutMs?: number;
  /** Catches its own failure and records `_ERROR` (so a default value is not its `result`). */
  selfCatching?: boolean;
  /** Collects input rather than reading upstream outputs: RAGFlow's skip rule never drops it. */
  neverSkipped?: boolean;
}

const S = 1000;

/**
 * RAGFlow's agent components (`agent/component`, `agent/tools`) and its web tools, all of which
 * run here; anything else is unknown and refused on save. Where each runs (the orchestrator's
 * step for the pure ones) is contracts' INLINE_COMPONENTS, which every entry there must be here.
 */
export const COMPONENTS: Readonly<Record<string, ComponentFacts>> = {
  Begin: { neverSkipped: true },
  Message: {},
  LLM: {},
  Agent: { timeoutMs: 1200 * S },
  Switch: { params: SwitchParamsSchema, timeoutMs: 3 * S },
  Categorize: { params: CategorizeParamsSchema },
  UserFillUp: { neverSkipped: true },
  VariableAssigner: {},
  VariableAggregator: { timeoutMs: 3 * S },
  StringTransform: {},
  Iteration: {},
  IterationItem: {},
  Loop: {},
  LoopItem: {},
  ExitLoop: {},
  ListOperations: {},
  DataOperations: {},
  // Upstream decorates Invoke with 3 s but requests with its own `timeout` param (60 s default);
  // the param's default is the one that holds here, so a default Invoke can finish its request.
  Invoke: { timeoutMs: 60 * S, selfCatching: true },
  Retrieval: { timeoutMs: 12 * S },
  CodeExec: { selfCatching: true },
  ExeSQL: { timeoutMs: 60 * S },
  DocGenerator: { params: DocGeneratorParamsSchema },
  ExcelProcessor: { params: ExcelProcessorParamsSchema },
  TavilySearch: { timeoutMs: 12 * S, selfCatching: true },
  YahooFinance: { timeoutMs: 60 * S, selfCatching: true },
  ...Object.fromEntries(WEB_TOOL_COMPONENTS.map((name) => [name, {}])),
  TavilyExtract: { timeoutMs: 600 * S },
};

/** The classes whose facts say `fact`. */
export const componentsWith = (fact: 'selfCatching' | 'neverSkipped'): ReadonlySet<string> =>
  new Set(Object.entries(COMPONENTS).flatMap(([name, f]) => (f[fact] ? [name] : [])));
