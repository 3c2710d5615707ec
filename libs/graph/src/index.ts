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
  COMPONENTS,
  type ComponentDescriptor,
  PURE_COMPONENTS,
  componentDescriptor,
  componentsWith,
  pureComponent,
} from './lib/components';
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
  categorizeSystemPrompt,
  categorizeUserPrompt,
  pickCategory,
} from './lib/categorize';
export { structuredOutputPrompt, structuredOutputSchema } from './lib/structured-output';
export {
  HISTORY_GLOBAL,
  type HistoryEntry,
  canvasHistory,
  historyAtTurnStart,
  historyWindow,
  promptsWithHistory,
} from './lib/canvas-history';
export { type ComponentOutcome, isSkipped, startOf, streamedInto, successorsOf } from './lib/canvas-next';
export { PyFloat, pyCompare, pyEquals, pyFloat, pyJsonDumps, pyRepr, pyStr, pyTruthy } from './lib/py-value';
export {
  aggregateVariables,
  assignVariables,
  beginOutputs,
  stringMerge,
  stringSplit,
  templateText,
  userFillUpInputSchema,
  userFillUpOutputs,
  userFillUpTips,
} from './lib/data-components';
export { COLLATED_OUTPUTS, type IterationStep, iterationItemStep, iterationItems } from './lib/iteration';
export { loopConditionHolds, loopEnded, loopVariables } from './lib/loop';
export { type GraphDsl, pinnedGraphDsl, runInputsOf, validateGraphDsl } from './lib/graph-dsl';
export {
  PUPPY_EDGE_TYPES,
  type PuppyBlock,
  type PuppyEdge,
  type PuppyWorkflow,
  PuppyWorkflowSchema,
} from './lib/puppy/workflow.schema';
export { editorToEngine, isEditorWorkflow } from './lib/puppy/editor';
export {
  PUPPY_VERSION,
  isPuppyWorkflow,
  validateWorkflow,
  workflowProblems,
} from './lib/puppy/parse-workflow';
export {
  type BlockState,
  type BlockView,
  type EdgeRecord,
  type EdgeStatus,
  type StoredEdgeRecord,
  ENTRY_RECORD,
  RESERVED_EDGE_IDS,
  allSettled,
  answerBlocks,
  blockViews,
  edgeStatus,
  entryRecord,
  failedEdges,
  recordOf,
  startEdges,
  storedRecord,
  successorEdges,
} from './lib/puppy/scheduler';
export {
  type PuppyLlmCall,
  type PuppyMessage,
  type SearchPlan,
  type SearchSource,
  chunkDocs,
  chunkOutputs,
  firstInputTexts,
  llmCalls,
  runPureEdge,
  searchPlan,
  writeToOutputs,
} from './lib/puppy/edge-run';
export {
  type DeepResearchConfig,
  MAX_RESEARCH_ITERATIONS,
  MAX_TOOL_CALLS,
  QA_SYSTEM_PROMPT,
  WEB_TOP_K_MAX,
  type WebItem,
  deepResearchConfig,
  deepResearchSystemPrompt,
  edgeModelName,
  extractToolCalls,
  formatVectorResults,
  formatWebResults,
  perplexityModel,
  toolResultsPrompt,
} from './lib/puppy/research';
export {
  type CollectionEntry,
  type CollectionSpec,
  type FilledConfigs,
  type VectorSourceRef,
  collectionSpecs,
  vectorSourceRefs,
  withCollectionConfigs,
  withIndexNames,
} from './lib/puppy/collections';
export {
  type EdgeEffect,
  type EdgeRunner,
  type PuppyEdgeStep,
  type PuppyResult,
  PUPPY_END_NODE,
  puppyAnswer,
  puppyFailure,
  pureEdgeEffect,
  purePuppyEdge,
  runPuppyEdgeStep,
} from './lib/puppy/edge-step';
export { IFELSE_CONDITIONS, combineConditions, evaluateCondition, evaluateIfElse } from './lib/puppy/ifelse';
export {
  type PuppyGeneratorCall,
  fieldContents,
  formatTemplate,
  generatorCalls,
  numberedItems,
  pyJsonDumpsIndented,
} from './lib/puppy/generator';
export {
  LOAD_BLOCK_TYPES,
  type LoadBlockType,
  type LoadFileRef,
  type LoadPlan,
  decideFileType,
  fileRefs,
  loadPlan,
  loadedBlocks,
  loadedContent,
} from './lib/puppy/load';
export { PUPPY_SYSTEM_PROMPTS, PUPPY_USER_PROMPTS } from './lib/puppy/prompt-templates';
export { loopedCombinations } from './lib/puppy/looped';
export { nestedGet, runModify } from './lib/puppy/modify';
export { normalizeBlockContent, replacePlaceholders } from './lib/puppy/placeholders';
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
export {
  CODE_EXEC_SYSTEM_OUTPUTS,
  type CodeExecParams,
  codeExecArguments,
  codeExecOutputs,
  codeExecParams,
  inferActualType,
  renderCanonicalContent,
} from './lib/code-exec';
export { LIST_OPERATIONS, listOperations } from './lib/list-operations';
export { DATA_OPERATIONS, dataOperations } from './lib/data-operations';
export { type ExceptionOutcome, exceptionOutcome } from './lib/exception-policy';
export {
  COMPONENT_TIMEOUT_TABLE_MS,
  type ComponentTimeouts,
  DEFAULT_COMPONENT_TIMEOUT_MS,
  componentTimeoutMs,
  parseComponentTimeouts,
} from './lib/component-timeout';
export { type InvokeRequest, htmlText, invokeRequest } from './lib/invoke-request';
export {
  DOC_FORMATS,
  DocGeneratorParamsSchema,
  type DocGeneratorParams,
  type DownloadInfo,
  ExcelProcessorParamsSchema,
  type ExcelProcessorParams,
  downloadsIn,
  sanitizeFilename,
} from './lib/file-components';
export {
  type ComponentContext,
  type ComponentEffect,
  type ComponentResult,
  type ComponentStepInput,
  type ComponentStepOutput,
  runComponentStep,
} from './lib/component-step';
export { type PureComponent, type PureComponentContext } from './lib/pure-components';
export { EXESQL_DB_TYPES, exeSqlDialect } from './lib/exe-sql';
export { type LlmRetryPolicy, llmRetryPolicy, llmRetryProblem } from './lib/llm-retry';
export { LLM_CHUNK_PROMPT, isLlmChunk, llmChunkMessages } from './lib/puppy/chunk';
