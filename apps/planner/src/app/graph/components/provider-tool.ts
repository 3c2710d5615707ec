import { ProviderException } from '@switchyard/provider-tools';
import type { GraphTool, GraphToolContext } from '../graph-tool';

/**
 * An Agent tool over a provider call, as RAGFlow offers it: `<function name>_<index>`, the
 * entry's own description when it has one, and a provider failure handed to the model as the
 * tool's answer (`<Provider> error: …`) rather than failing the Agent.
 */
export function providerTool(opts: {
  functionName: string;
  index: number;
  entryParams: Record<string, unknown>;
  description: string;
  parameters: Record<string, unknown>;
  errorPrefix: string;
  call: (args: Record<string, unknown>, ctx: GraphToolContext) => Promise<string>;
}): GraphTool {
  const own = opts.entryParams['description'];
  return {
    name: `${opts.functionName}_${opts.index}`,
    description: typeof own === 'string' && own ? own : opts.description,
    parameters: opts.parameters,
    call: async (args, ctx) => {
      try {
        return await opts.call(args, ctx);
      } catch (err) {
        if (err instanceof ProviderException) {
          return `${opts.errorPrefix} error: ${err.message}`;
        }
        throw err;
      }
    },
  };
}
