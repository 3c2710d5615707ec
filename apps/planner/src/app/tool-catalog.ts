import { type NodeRegistration, toolFunctionName } from '@switchyard/contracts';

export interface OfferedFunction {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The tools one planner call may offer: registered `tool` nodes the run's agent allows and the
 * run's tenant may use (a node registered with a `tenant_id` belongs to that tenant alone). Node
 * names become OpenAI function names (`mcp.fs.read` → `mcp__fs__read`); the reverse map turns the
 * model's calls back into node names.
 */
export class ToolCatalog {
  private readonly byFunction = new Map<string, NodeRegistration>();

  private constructor(
    readonly tools: readonly NodeRegistration[],
    readonly skipped: readonly string[],
  ) {
    for (const t of tools) {
      this.byFunction.set(toolFunctionName(t.name), t);
    }
  }

  static build(
    nodes: readonly NodeRegistration[],
    opts: { allowed?: readonly string[]; tenantId: string | null },
  ): ToolCatalog {
    const offered: NodeRegistration[] = [];
    const skipped: string[] = [];
    const taken = new Set<string>();
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
    return new ToolCatalog(offered, skipped);
  }

  get names(): string[] {
    return this.tools.map((t) => t.name);
  }

  /** The langchain/OpenAI tool definitions, optionally only for some nodes. */
  functions(only?: (node: NodeRegistration) => boolean): OfferedFunction[] {
    return this.tools
      .filter((t) => !only || only(t))
      .map((t) => ({
        type: 'function' as const,
        function: { name: toolFunctionName(t.name), description: t.description, parameters: t.input_schema },
      }));
  }

  /** The node an offered function name stands for; a name that was not offered maps to itself (the orchestrator then names it). */
  nodeOf(fn: string): string {
    return this.byFunction.get(fn)?.name ?? fn;
  }
}
