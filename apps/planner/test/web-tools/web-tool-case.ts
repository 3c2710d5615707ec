import type { ProviderStandIn } from '@switchyard/testing';

/**
 * One RAGFlow web tool end to end (graph-web-tools.e2e-spec): the routes its local stand-in
 * answers in the real API's documented shape (under `/<prefix>`, which its
 * SWITCHYARD_PROVIDER_URL_<TOOL> points at), the tool's params, what the component's
 * `formalized_content` (or `output`) must contain, and the Agent's call.
 */
export interface WebToolCase {
  /** RAGFlow's component name (`Wikipedia`). */
  component: string;
  /** SWITCHYARD_PROVIDER_URL_<envName>. */
  envName: string;
  /** The tenant provider key the tool needs, set before the runs. */
  key?: { provider: string; secret: string };
  /** Adds the stand-in's routes; every path starts with `/${prefix}`. */
  routes(standIn: ProviderStandIn, prefix: string): void;
  /** The component's (and the Agent entry's) params. */
  params: Record<string, unknown>;
  /** The run's prompt: the component's `{sys.query}`. */
  prompt: string;
  /** The output the Message shows (default `formalized_content`). */
  output?: string;
  /** Texts the component's output must contain. */
  expected: string[];
  /** The Agent's call: the function's arguments and a text of the tool's answer the model reads. */
  agent: { args: Record<string, unknown>; reads: string };
}
