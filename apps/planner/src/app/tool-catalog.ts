import {
  CLIENT_TOOL,
  type ClientTool,
  type NodeRegistration,
  type ToolCall,
  toolFunctionName,
  toolTypesOf,
} from '@switchyard/contracts';

export interface OfferedFunction {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The tools one planner call may offer: registered `tool` nodes the run's agent allows and the
 * run's tenant may use (a node registered with a `tenant_id` belongs to that tenant alone), and
 * the functions the API client brought with its request. Node names become OpenAI function names
 * (`mcp.fs.read` → `mcp__fs__read`); the reverse map turns the model's calls back into node names,
 * and a call of a client function into a `client_tool` call. Seed 003's tool types split them:
 * `call` tools are offered while the work goes on (`tools`), `output` tools only when it is done
 * (`outputs`); a tool of both types is in both.
 */
export class ToolCatalog {
  private readonly byFunction = new Map<string, NodeRegistration>();
  private readonly clientByName = new Map<string, ClientTool>();

  private constructor(
    readonly tools: readonly NodeRegistration[],
    readonly skipped: readonly string[],
    readonly clientTools: readonly ClientTool[] = [],
    readonly outputs: readonly NodeRegistration[] = [],
  ) {
    for (const t of [...tools, ...outputs]) {
      this.byFunction.set(toolFunctionName(t.name), t);
    }
    for (const t of clientTools) {
      this.clientByName.set(t.function.name, t);
    }
  }

  /**
   * `allowed`: the agent's tools (absent = all); `outputAllowed`: the agent's output tools (absent =
   * the output tools `allowed` lets through).
   */
  static build(
    nodes: readonly NodeRegistration[],
    opts: {
      allowed?: readonly string[];
      outputAllowed?: readonly string[];
      tenantId: string | null;
      clientTools?: readonly ClientTool[];
    },
  ): ToolCatalog {
    const offered: NodeRegistration[] = [];
    const outputs: NodeRegistration[] = [];
    const skipped: string[] = [];
    const may = (list: readonly string[] | undefined, name: string) =>
      list === undefined || list.includes(name);
    // The client's functions win a name clash: the client asked for its function by name.
    const clientTools = opts.clientTools ?? [];
    const taken = new Set<string>(clientTools.map((t) => t.function.name));
    for (const n of nodes) {
      const owner = n.tenant_id;
      const types = toolTypesOf(n);
      const call = types.includes('call') && may(opts.allowed, n.name);
      const output = types.includes('output') && may(opts.outputAllowed ?? opts.allowed, n.name);
      if (!call && !output) {
        continue;
      }
      if (owner && owner !== opts.tenantId) {
        continue;
      }
      const fn = toolFunctionName(n.name);
      if (taken.has(fn)) {
        // Two nodes that map to one function name (`a.b` and `a__b`): offering both would make
        // the model's call ambiguous, so the later one (by name) is left out and reported.
        skipped.push(n.name);
        continue;
      }
      taken.add(fn);
      if (call) {
        offered.push(n);
      }
      if (output) {
        outputs.push(n);
      }
    }
    return new ToolCatalog(offered, skipped, clientTools, outputs);
  }

  get names(): string[] {
    return [...this.tools.map((t) => t.name), ...this.clientTools.map((t) => `${t.function.name} (client)`)];
  }

  /** `- name: description` lines of every offered tool, for prompts that list them. */
  describe(): string[] {
    return [
      ...this.tools.map((t) => `- ${t.name}: ${t.description}`),
      ...this.clientTools.map((t) => `- ${t.function.name}: ${t.function.description ?? ''}`),
    ];
  }

  /** The langchain/OpenAI tool definitions (the client's functions last), optionally only for some nodes. */
  functions(only?: (node: NodeRegistration) => boolean): OfferedFunction[] {
    return [
      ...this.tools
        .filter((t) => !only || only(t))
        .map((t) => ({
          type: 'function' as const,
          function: {
            name: toolFunctionName(t.name),
            description: t.description,
            parameters: t.input_schema,
          },
        })),
      ...this.clientTools.map((t) => ({
        type: 'function' as const,
        function: {
          name: t.function.name,
          description: t.function.description ?? '',
          parameters: t.function.parameters ?? { type: 'object', properties: {} },
        },
      })),
    ];
  }

  /** The function an output tool is offered as (its real parameters: the model fills them). */
  outputFunction(node: string): OfferedFunction | undefined {
    const t = this.outputs.find((o) => o.name === node);
    return t
      ? {
          type: 'function',
          function: {
            name: toolFunctionName(t.name),
            description: t.description,
            parameters: t.input_schema,
          },
        }
      : undefined;
  }

  /** The tool call a model's call of the function `fn` stands for. */
  toolCall(fn: string, id: string, args: Record<string, unknown>): ToolCall {
    if (this.clientByName.has(fn)) {
      return { id, name: CLIENT_TOOL.name, args: { name: fn, arguments: args } };
    }
    return { id, name: this.nodeOf(fn), args };
  }

  /** The node an offered function name stands for; a name that was not offered maps to itself (the orchestrator then names it). */
  nodeOf(fn: string): string {
    return this.byFunction.get(fn)?.name ?? fn;
  }
}
