export {
  type Canvas,
  type CanvasComponent,
  type CanvasDsl,
  type CanvasGraph,
  type NormalizedComponent,
  CanvasDslSchema,
  CanvasGraphSchema,
} from './lib/dsl.schema';
export { GraphErrorCode, GraphException, type GraphProblem, describeProblems } from './lib/graph.exception';
export { componentsFromGraph, parseCanvas } from './lib/normalize-dsl';
export { KNOWN_COMPONENTS, canvasProblems, validateCanvas } from './lib/validate-canvas';
export {
  type VariableScope,
  type TemplateSegment,
  bracedRefPattern,
  componentOutput,
  getVariableValue,
  isWholeRef,
  referencedComponents,
  renderTemplate,
  resolveParam,
  setVariableValue,
  stripRef,
  templateSegments,
  variableRefPattern,
} from './lib/variable-ref';
export {
  SWITCH_OPERATORS,
  type SwitchDecision,
  type SwitchOperator,
  type SwitchParams,
  SwitchParamsSchema,
  compareSwitchItem,
  evaluateSwitch,
} from './lib/switch';
export {
  type CategorizeParams,
  type CategoryDecision,
  CategorizeParamsSchema,
  categorizeHistory,
  categorizeSystemPrompt,
  categorizeUserPrompt,
  pickCategory,
} from './lib/categorize';
export { type ComponentOutcome, isSkipped, startOf, successorsOf } from './lib/canvas-next';
export { PyFloat, pyCompare, pyEquals, pyFloat, pyJsonDumps, pyRepr, pyStr, pyTruthy } from './lib/py-value';
export {
  aggregateVariables,
  assignVariables,
  beginOutputs,
  stringMerge,
  stringSplit,
  userFillUpInputSchema,
  userFillUpOutputs,
  userFillUpTips,
} from './lib/data-components';
export { COLLATED_OUTPUTS, type IterationStep, iterationItemStep, iterationItems } from './lib/iteration';
export { loopConditionHolds, loopEnded, loopVariables } from './lib/loop';
export {
  type AgentFunction,
  type AgentParams,
  type AgentToolEntry,
  type KbChunk,
  type RetrievalParams,
  AgentParamsSchema,
  AgentToolEntrySchema,
  RETRIEVAL_FUNCTION,
  RetrievalParamsSchema,
  citationPrompt,
  hashStr2Int,
  hybridSimilarity,
  indexedToolName,
  keywordSimilarity,
  kbPrompt,
  retrievalDatasets,
  retrievalFunction,
  subAgentFunction,
  subAgentUserPrompt,
  toolRunningNote,
} from './lib/agent-tools';
