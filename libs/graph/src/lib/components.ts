import type { z } from 'zod';
import { WEB_TOOL_COMPONENTS } from '@switchyard/contracts';
import { CategorizeParamsSchema } from './categorize';
import { DocGeneratorParamsSchema, ExcelProcessorParamsSchema } from './file-components';
import * as pure from './pure-components';
import {
  type SaveCheck,
  agentCheck,
  exeSqlCheck,
  iterationCheck,
  llmCheck,
  messageCheck,
} from './save-checks';
import { SwitchParamsSchema } from './switch';

/**
 * What the engine knows of one component class (RAGFlow component name, the key of its entry in
 * COMPONENTS): one descriptor per class, not one table per fact. A class is runnable when it has
 * a `pure` runner here or a runner registered in the planner's GraphModule (apps/planner
 * `GRAPH_COMPONENT_RUNNERS`); a spec there checks that every class here is one or the other.
 */
export interface ComponentDescriptor {
  /** Its params, checked on save (a component without one is checked by its own rules only). */
  params?: z.ZodType;
  /** What else it needs to run here, checked on save after `params` (save-checks.ts). */
  check?: SaveCheck;
  /** RAGFlow's `@timeout` default for the class, in ms (else the uniform default). */
  timeoutMs?: number;
  /** Catches its own failure and records `_ERROR` (so a default value is not its `result`). */
  selfCatching?: boolean;
  /** Collects input rather than reading upstream outputs: RAGFlow's skip rule never drops it. */
  neverSkipped?: boolean;
  /**
   * Computes its effect from the state alone: the orchestrator runs it inline, in its step
   * transaction, and the planner with the same code (docs/architecture.md, "Where a node runs").
   */
  pure?: pure.PureComponent;
}

const S = 1000;

/**
 * The registry: RAGFlow's agent components (`agent/component`, `agent/tools`) and its web tools,
 * all of which run here; anything else is unknown and refused on save. The ones with a `pure`
 * runner are contracts' INLINE_COMPONENTS (a spec keeps the two alike).
 */
export const COMPONENTS: Readonly<Record<string, ComponentDescriptor>> = {
  Begin: { neverSkipped: true, pure: pure.beginComponent },
  Message: { check: messageCheck },
  LLM: { check: llmCheck },
  Agent: { timeoutMs: 1200 * S, check: agentCheck },
  Switch: { params: SwitchParamsSchema, timeoutMs: 3 * S, pure: pure.switchComponent },
  Categorize: { params: CategorizeParamsSchema },
  UserFillUp: { neverSkipped: true },
  VariableAssigner: { pure: pure.variableAssignerComponent },
  VariableAggregator: { timeoutMs: 3 * S, pure: pure.variableAggregatorComponent },
  StringTransform: { pure: pure.stringTransformComponent },
  Iteration: { check: iterationCheck, pure: pure.iterationComponent },
  IterationItem: { pure: pure.iterationItemComponent },
  Loop: { pure: pure.loopComponent },
  LoopItem: { pure: pure.loopItemComponent },
  ExitLoop: { pure: pure.exitLoopComponent },
  ListOperations: { pure: pure.listOperationsComponent },
  DataOperations: { pure: pure.dataOperationsComponent },
  // Upstream decorates Invoke with 3 s but requests with its own `timeout` param (60 s default);
  // the param's default is the one that holds here, so a default Invoke can finish its request.
  Invoke: { timeoutMs: 60 * S, selfCatching: true },
  Retrieval: { timeoutMs: 12 * S },
  CodeExec: { selfCatching: true },
  ExeSQL: { timeoutMs: 60 * S, check: exeSqlCheck },
  DocGenerator: { params: DocGeneratorParamsSchema },
  ExcelProcessor: { params: ExcelProcessorParamsSchema },
  TavilySearch: { timeoutMs: 12 * S, selfCatching: true },
  YahooFinance: { timeoutMs: 60 * S, selfCatching: true },
  ...Object.fromEntries(WEB_TOOL_COMPONENTS.map((name) => [name, {}])),
  TavilyExtract: { timeoutMs: 600 * S },
};

/** The descriptor of the class `name`, if the registry has one. */
export function componentDescriptor(name: string): ComponentDescriptor | undefined {
  return Object.hasOwn(COMPONENTS, name) ? COMPONENTS[name] : undefined;
}

/** The classes whose descriptors say `fact`. */
export const componentsWith = (fact: 'selfCatching' | 'neverSkipped' | 'pure'): ReadonlySet<string> =>
  new Set(Object.entries(COMPONENTS).flatMap(([name, f]) => (f[fact] ? [name] : [])));

/** The pure runners, by class name (the descriptors' `pure`). */
export const PURE_COMPONENTS: Readonly<Record<string, pure.PureComponent>> = Object.fromEntries(
  Object.entries(COMPONENTS).flatMap(([name, f]) => (f.pure ? [[name, f.pure]] : [])),
);

/** The pure component of that name, if it is one (the orchestrator runs it inline). */
export function pureComponent(name: string): pure.PureComponent | undefined {
  return componentDescriptor(name)?.pure;
}
