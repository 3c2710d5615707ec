import {
  CLIENT_TOOL,
  type ClientTool,
  type NodeRegistration,
  type ToolCall,
  toolFunctionName,
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
 * and a call of a client function into a `client_tool` call.
 */
export class ToolCatalog {
  private readonly byFunction = new Map<string, NodeRegistration>();
  private readonly clientByName = new Map<string, ClientTool>();

  private constructor(
    readonly tools: readonly NodeRegistration[],
    readonly skipped: readonly string[],
    readonly clientTools: readonly ClientTool[] = [],
  ) {
    for (const t of tools) {
      this.byFunction.set(toolFunctionName(t.name), t);
    }
    for (const t of clientTools) {
      this.clientByName.set(t.function.name, t);
    }
  }

  static build(
    nodes: readonly NodeRegistration[],
    opts: { allowed?: readonly string[]; tenantId: string | null; clientTools?: readonly ClientTool[] },
  ): ToolCatalog {
    const offered: NodeRegistration[] = [];
    const skipped: string[] = [];
    // The client's functions win a name clash: the client asked for its function by name.
    const clientTools = opts.clientTools ?? [];
    const taken = new Set<string>(clientTools.map((t) => t.function.name));
    for (const n of nodes) {
      const owner = n.tenant_id;
      if (!n.tool || (opts.allowed !== undefined && !opts.allowed.includes(n.name))) {
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
      offered.push(n);
    }
    return new ToolCatalog(offered, skipped, clientTools);
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
