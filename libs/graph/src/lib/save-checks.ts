import { EXESQL_DB_TYPES, exeSqlDialect } from './exe-sql';
import type { NormalizedComponent } from './dsl.schema';
import { GraphErrorCode, type GraphProblem } from './graph.exception';
import { llmRetryProblem } from './llm-retry';

/**
 * A component class's own save check, beyond its params schema: what the class needs to run here
 * that a schema does not say well (the descriptor's `check`, components.ts). Each returns the
 * problems of one component, none when it can run.
 */
export type SaveCheck = (c: NormalizedComponent) => GraphProblem[];

const missing = (c: NormalizedComponent, field: string, message: string): GraphProblem => ({
  code: GraphErrorCode.MissingParam,
  component: c.id,
  field,
  message,
});

/** An ExeSQL's `db_type` that cannot be queried here (as a component or an Agent's tool). */
function exeSqlProblem(c: NormalizedComponent, params: unknown, field: string): GraphProblem[] {
  const dbType = (params as { db_type?: unknown } | null)?.db_type;
  return exeSqlDialect(dbType)
    ? []
    : [
        {
          code: GraphErrorCode.UnsupportedComponent,
          component: c.id,
          field,
          message: `ExeSQL cannot query db_type "${String(dbType)}" here; it queries ${EXESQL_DB_TYPES.join(', ')}`,
        },
      ];
}

/** A Message says at least one text. */
export const messageCheck: SaveCheck = (c) => {
  const content = c.params['content'];
  return Array.isArray(content) && content.length > 0 && content.every((x) => typeof x === 'string')
    ? []
    : [missing(c, 'content', 'a Message needs at least one content text')];
};

/** An LLM names its model (RAGFlow refuses to load one without, the stock template as shipped) and a valid retry policy. */
export const llmCheck: SaveCheck = (c) => {
  const problems: GraphProblem[] = [];
  const llmId = c.params['llm_id'];
  if (typeof llmId !== 'string' || llmId.trim() === '') {
    problems.push(missing(c, 'llm_id', `an ${c.name} needs a model (llm_id)`));
  }
  const retry = llmRetryProblem(c.params);
  if (retry) {
    problems.push(missing(c, retry.field, retry.message));
  }
  return problems;
};

/** An Agent is an LLM whose `tools[]` can run here (an ExeSQL tool on an engine queried here). */
export const agentCheck: SaveCheck = (c) => {
  const tools = c.params['tools'];
  const toolProblems = Array.isArray(tools)
    ? tools.flatMap((t: unknown, i): GraphProblem[] => {
        const tool = t as { component_name?: unknown; params?: unknown } | null;
        return tool?.component_name === 'ExeSQL'
          ? exeSqlProblem(c, tool.params, `params.tools.${i}.params.db_type`)
          : [];
      })
    : [];
  return [...toolProblems, ...llmCheck(c)];
};

/** An ExeSQL queries an engine this platform queries. */
export const exeSqlCheck: SaveCheck = (c) => exeSqlProblem(c, c.params, 'db_type');

/** An Iteration names the list it iterates. */
export const iterationCheck: SaveCheck = (c) => {
  const ref = c.params['items_ref'];
  return typeof ref === 'string' && ref !== ''
    ? []
    : [missing(c, 'items_ref', 'an Iteration needs the reference of the list it iterates')];
};
