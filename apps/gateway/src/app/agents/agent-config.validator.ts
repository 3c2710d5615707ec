import type { AgentConfig } from '@switchyard/contracts';
import { GraphException, validateCanvas } from '@switchyard/graph';
import { ApiErrorCode, ApiException } from '../http/api.exception';

/**
 * What the body schema cannot check: a graph agent's DSL (any RAGFlow form). Throws a 400 whose
 * `details` name the component and field of every problem, so nothing invalid is ever stored.
 */
export function assertAgentConfig(config: AgentConfig): void {
  if (config.kind !== 'graph') {
    if (config.dsl !== undefined) {
      throw new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
        { field: 'dsl', message: 'only a graph agent (kind "graph") has a dsl' },
      ]);
    }
    return;
  }
  if (config.dsl === undefined) {
    throw new ApiException(ApiErrorCode.InvalidRequest, 'the request is invalid', [
      { field: 'dsl', message: 'a graph agent needs its dsl' },
    ]);
  }
  try {
    validateCanvas(config.dsl);
  } catch (err) {
    if (err instanceof GraphException) {
      throw new ApiException(
        ApiErrorCode.InvalidRequest,
        `the graph DSL is invalid: ${err.message}`,
        err.problems.map((p) => ({
          field: ['dsl', p.component && `components.${p.component}`, p.field].filter(Boolean).join('.'),
          component: p.component,
          code: p.code,
          message: p.message,
        })),
      );
    }
    throw err;
  }
}
