// Every code that can end a run (`runs.error.code`, the `error` event) or fail an action
// (`action.error.code`): what it means, who raises it, and whether trying again may help.
// docs/api.md's "Run error codes" table is this catalogue (run-errors.spec.ts compares them).

/** One entry of the catalogue. */
export interface RunErrorInfo {
  /** What happened, in a sentence for a reader of `runs.error` or an action's error. */
  readonly description: string;
  /** The service or library that raises it. */
  readonly raisedBy: string;
  /** Whether the same request may succeed later (a transient cause), not whether it is retried. */
  readonly retry: boolean;
}

const ORCHESTRATOR = 'run-orchestrator';
const RUNTIME = 'node runtime (libs/worker)';
const TOOLS = 'tool runner (libs/worker)';
const TOOL_EXECUTOR = 'tool-executor';
const HTTP_GET = 'tool-executor: http_get';
const CALCULATOR = 'tool-executor: calculator';
const MCP = 'tool-executor: MCP';
const MODELS = 'model calls (libs/models)';
const GRAPH = 'graph runs (libs/graph, planner)';
const PROVIDERS = 'provider tools (libs/provider-tools)';
const KNOWLEDGE = 'knowledge (libs/knowledge)';
const SQL = 'SQL data sources (libs/sql-sources)';

export const RUN_ERRORS = {
  // The orchestrator ends the run.
  unknown_node: {
    description: 'an action asked for a node that no service registered',
    raisedBy: ORCHESTRATOR,
    retry: false,
  },
  max_steps_exceeded: {
    description: 'the run reached its `max_steps`',
    raisedBy: ORCHESTRATOR,
    retry: false,
  },
  delta_rejected: {
    description: "the run's state refused a node's delta (a patch not allowed or failing)",
    raisedBy: ORCHESTRATOR,
    retry: false,
  },
  invalid_delta: {
    description: "a node's answer or a message about the run is not valid",
    raisedBy: ORCHESTRATOR,
    retry: false,
  },
  task_timeout: {
    description:
      "a task passed its deadline without the node's answer (dispatched again until its attempts are spent)",
    raisedBy: ORCHESTRATOR,
    retry: true,
  },
  unavailable: {
    description: 'the gateway could not hand the run to the orchestrator (NATS unavailable)',
    raisedBy: 'gateway',
    retry: true,
  },
  // Any node service.
  node_failed: {
    description: "a node's code failed with an error that names no code",
    raisedBy: RUNTIME,
    retry: false,
  },
  invalid_task: { description: 'a task message is not valid', raisedBy: RUNTIME, retry: false },
  task_without_tenant: {
    description: 'a task names no tenant (published by an orchestrator older than tenant_id on tasks)',
    raisedBy: RUNTIME,
    retry: false,
  },
  invalid_agent_config: {
    description: "the run's agent configuration cannot be read",
    raisedBy: 'planner',
    retry: false,
  },
  invalid_response_format: {
    description: "the run's `response_format` is not a usable JSON Schema",
    raisedBy: 'output',
    retry: false,
  },
  // Tools, in the node service or the tool-executor.
  invalid_tool_input: {
    description: "a tool's arguments do not match its input schema",
    raisedBy: TOOLS,
    retry: false,
  },
  tool_timeout: { description: 'a tool did not finish within its time budget', raisedBy: TOOLS, retry: true },
  tool_crashed: {
    description: "a tool's work failed outside its promise (a throw in a callback)",
    raisedBy: TOOLS,
    retry: false,
  },
  network_error: {
    description: 'a tool could not reach its host (DNS, connection refused or reset)',
    raisedBy: `${TOOLS}, ${HTTP_GET}`,
    retry: true,
  },
  tool_outcome_unknown: {
    description: 'a tool that is not safe to run twice was interrupted; whether it acted is unknown',
    raisedBy: TOOLS,
    retry: false,
  },
  data_not_found: {
    description: "a tool output's stored value has no such path",
    raisedBy: 'tool outputs (libs/persistence)',
    retry: false,
  },
  tool_bad_request: {
    description: 'a tool call request to the tool-executor is not valid',
    raisedBy: TOOL_EXECUTOR,
    retry: false,
  },
  unknown_tool: { description: 'no catalogue tool has that name', raisedBy: TOOL_EXECUTOR, retry: false },
  tool_error: {
    description: 'a catalogue tool failed with an error that names no code',
    raisedBy: TOOL_EXECUTOR,
    retry: false,
  },
  forbidden_address: {
    description: 'the URL resolves to an address the deployment does not allow',
    raisedBy: HTTP_GET,
    retry: false,
  },
  invalid_url: { description: 'the URL is not a valid http(s) URL', raisedBy: HTTP_GET, retry: false },
  timeout: { description: 'the fetch took longer than its timeout', raisedBy: HTTP_GET, retry: true },
  too_many_redirects: { description: 'the fetch was redirected too often', raisedBy: HTTP_GET, retry: false },
  aborted: {
    description: 'the call was aborted (the run was cancelled)',
    raisedBy: `${HTTP_GET}, ${MODELS}`,
    retry: false,
  },
  syntax_error: { description: 'the expression does not parse', raisedBy: CALCULATOR, retry: false },
  math_error: {
    description: 'the expression has no finite value (division by zero, …)',
    raisedBy: CALCULATOR,
    retry: false,
  },
  mcp_bad_request: { description: 'an MCP call request is not valid', raisedBy: MCP, retry: false },
  mcp_timeout: { description: 'the MCP server did not answer in time', raisedBy: MCP, retry: true },
  mcp_unavailable: { description: 'the MCP server cannot be reached', raisedBy: MCP, retry: true },
  mcp_tool_error: { description: 'the MCP tool answered with an error', raisedBy: MCP, retry: false },
  mcp_error: { description: 'the MCP call failed otherwise', raisedBy: MCP, retry: false },
  mcp_unknown_tool: { description: 'the MCP server has no such tool', raisedBy: MCP, retry: false },
  mcp_forbidden: {
    description: "the tenant may not call that MCP server's tool",
    raisedBy: MCP,
    retry: false,
  },
  // Model calls.
  llm_unavailable: {
    description: 'the model vendor failed or could not be reached',
    raisedBy: MODELS,
    retry: true,
  },
  llm_rejected: {
    description: 'the model vendor refused the call (bad request, authentication)',
    raisedBy: MODELS,
    retry: false,
  },
  llm_rate_limited: { description: 'every key of the model is rate-limited', raisedBy: MODELS, retry: true },
  llm_bad_reply: {
    description: "the vendor's reply is not in the expected shape",
    raisedBy: MODELS,
    retry: true,
  },
  unparseable_reply: {
    description: "the model's reply did not parse as the structure asked for, after the retries",
    raisedBy: MODELS,
    retry: true,
  },
  budget_exceeded: { description: "the tenant's model budget is spent", raisedBy: MODELS, retry: false },
  model_not_found: { description: 'the registry has no such model', raisedBy: MODELS, retry: false },
  model_not_chat: { description: 'the model is not a chat model', raisedBy: MODELS, retry: false },
  model_not_embedding: { description: 'the model is not an embedding model', raisedBy: MODELS, retry: false },
  no_model_key: {
    description: "the tenant has no key for the model's vendor",
    raisedBy: MODELS,
    retry: false,
  },
  invalid_parser: {
    description: "the registry's parser schema for the model is not a valid JSON Schema",
    raisedBy: MODELS,
    retry: false,
  },
  // Graph (RAGFlow, PuppyEngine) runs.
  invalid_dsl: { description: "the graph's DSL is not valid", raisedBy: GRAPH, retry: false },
  unknown_component: {
    description: 'the DSL names a component that does not exist',
    raisedBy: GRAPH,
    retry: false,
  },
  unsupported_component: {
    description: 'the component (or one of its modes) is not built here',
    raisedBy: GRAPH,
    retry: false,
  },
  dangling_reference: {
    description: 'the DSL refers to a component that is not there',
    raisedBy: GRAPH,
    retry: false,
  },
  cycle: { description: 'the graph has a cycle outside a Loop', raisedBy: GRAPH, retry: false },
  missing_param: { description: 'a component lacks a required parameter', raisedBy: GRAPH, retry: false },
  unknown_variable: {
    description: 'a reference names a variable that does not exist',
    raisedBy: GRAPH,
    retry: false,
  },
  component_failed: { description: 'a graph component or edge failed', raisedBy: GRAPH, retry: false },
  // Web and data provider tools.
  provider_no_key: {
    description: 'the tenant has no key for the provider',
    raisedBy: PROVIDERS,
    retry: false,
  },
  provider_unauthorized: { description: 'the provider refused the key', raisedBy: PROVIDERS, retry: false },
  provider_unavailable: {
    description: 'the provider failed or is overloaded',
    raisedBy: PROVIDERS,
    retry: true,
  },
  provider_bad_response: {
    description: "the provider's answer cannot be read",
    raisedBy: PROVIDERS,
    retry: false,
  },
  provider_network: { description: 'the provider cannot be reached', raisedBy: PROVIDERS, retry: true },
  provider_invalid_input: {
    description: 'the arguments are not valid for the provider',
    raisedBy: PROVIDERS,
    retry: false,
  },
  // Knowledge collections.
  unknown_block: {
    description: 'no knowledge collection (block) has that id',
    raisedBy: KNOWLEDGE,
    retry: false,
  },
  no_index_set: {
    description: 'the collection has no done index set to search',
    raisedBy: KNOWLEDGE,
    retry: false,
  },
  unknown_index_set: {
    description: 'the collection has no index set of that name',
    raisedBy: KNOWLEDGE,
    retry: false,
  },
  unknown_collection: {
    description: 'no collection of the tenant has that name',
    raisedBy: KNOWLEDGE,
    retry: false,
  },
  index_not_ready: {
    description: 'the index set is still pending or failed',
    raisedBy: KNOWLEDGE,
    retry: true,
  },
  indexing_failed: { description: 'the entries could not be indexed', raisedBy: KNOWLEDGE, retry: false },
  unknown_embedding_model: {
    description: 'the embedding model is not known',
    raisedBy: KNOWLEDGE,
    retry: false,
  },
  // SQL data sources.
  sql_unknown_data_source: {
    description: 'the tenant has no data source of that name',
    raisedBy: SQL,
    retry: false,
  },
  sql_data_source_invalid: {
    description: "the data source's settings are not usable",
    raisedBy: SQL,
    retry: false,
  },
  sql_data_source_forbidden: {
    description: "the data source's host is an address the deployment does not allow",
    raisedBy: SQL,
    retry: false,
  },
  sql_invalid: { description: 'the statement does not parse', raisedBy: SQL, retry: false },
  sql_forbidden: { description: 'the statement is not a read-only query', raisedBy: SQL, retry: false },
  sql_multiple_statements: { description: 'more than one statement was sent', raisedBy: SQL, retry: false },
  sql_read_only: {
    description: 'the database refused a write (read-only transaction)',
    raisedBy: SQL,
    retry: false,
  },
  sql_timeout: { description: 'the query ran past its statement timeout', raisedBy: SQL, retry: true },
  sql_connection_error: { description: 'the database could not be reached', raisedBy: SQL, retry: true },
  sql_error: { description: 'the database refused the query', raisedBy: SQL, retry: false },
} as const satisfies Record<string, RunErrorInfo>;

/** A code of the catalogue: what the producers in this repository raise. */
export type RunErrorCode = keyof typeof RUN_ERRORS;

/** A subset of the catalogue's codes, e.g. one error class's: `RunErrorCodes<'a' | 'b'>` fails to compile on a code not in it. */
export type RunErrorCodes<T extends RunErrorCode> = T;

declare const unchecked: unique symbol;
/**
 * A code this build did not raise and so cannot check: read off the wire (an older or newer
 * service may send one this catalogue lacks) or off an error thrown by code that is not ours.
 * It passes through unchanged; only `uncheckedRunErrorCode` makes one, so a string literal never is.
 */
export type UncheckedRunErrorCode = string & { readonly [unchecked]: true };

/** What a run's or an action's error carries: a catalogue code, or one passed through. */
export type AnyRunErrorCode = RunErrorCode | UncheckedRunErrorCode;

export function isRunErrorCode(code: string): code is RunErrorCode {
  return Object.prototype.hasOwnProperty.call(RUN_ERRORS, code);
}

/** A code received from elsewhere, kept as it is (see UncheckedRunErrorCode). */
export function uncheckedRunErrorCode(code: string): AnyRunErrorCode {
  return code as UncheckedRunErrorCode;
}

/** An action's or a run's error as this repository's producers build it. */
export interface RunError {
  code: AnyRunErrorCode;
  message: string;
}

/** The catalogue as docs/api.md shows it: one Markdown table row per code, in catalogue order. */
export function runErrorTable(): string {
  const rows = Object.entries(RUN_ERRORS).map(
    ([code, info]: [string, RunErrorInfo]) =>
      `| \`${code}\` | ${info.raisedBy} | ${info.retry ? 'yes' : 'no'} | ${info.description} |`,
  );
  return ['| code | raised by | retry may help | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
