import { useQuery } from '@tanstack/react-query';
import type { RunAction, SwitchyardClient } from '@switchyard/client';
import { componentIdOfNode, isInlineComponent } from '@switchyard/contracts';

type Component = { downstream?: string[]; obj?: { component_name?: string } };
type Dsl = {
  components?: Record<string, Component>;
  dsl?: Dsl;
  graph?: {
    nodes?: { id: string; data?: { label?: string; name?: string } }[];
    edges?: { source: string; target: string }[];
  };
};

/** A canvas's components and their edges, from any of RAGFlow's DSL forms. */
function canvasOf(dsl: Dsl): { nodes: Map<string, string>; edges: [string, string][] } | undefined {
  const d = dsl.dsl ?? dsl;
  const nodes = new Map<string, string>();
  const edges: [string, string][] = [];
  if (d.components && Object.keys(d.components).length) {
    for (const [id, c] of Object.entries(d.components)) {
      nodes.set(id, c.obj?.component_name ?? id);
      for (const t of c.downstream ?? []) {
        edges.push([id, t]);
      }
    }
    return { nodes, edges };
  }
  if (d.graph?.nodes?.length) {
    for (const n of d.graph.nodes) {
      nodes.set(n.id, n.data?.label ?? n.id);
    }
    for (const e of d.graph.edges ?? []) {
      edges.push([e.source, e.target]);
    }
    return { nodes, edges };
  }
  return undefined;
}

/** Columns by distance from Begin (nodes nothing leads to start the first column). */
function layers(nodes: Map<string, string>, edges: [string, string][]): string[][] {
  const incoming = new Set(edges.map(([, t]) => t));
  const depth = new Map<string, number>();
  const queue = [...nodes.keys()].filter((n) => !incoming.has(n));
  queue.forEach((n) => depth.set(n, 0));
  while (queue.length) {
    const n = queue.shift() as string;
    for (const [s, t] of edges) {
      if (s === n && !depth.has(t) && nodes.has(t)) {
        depth.set(t, (depth.get(n) ?? 0) + 1);
        queue.push(t);
      }
    }
  }
  const cols: string[][] = [];
  for (const n of nodes.keys()) {
    const d = depth.get(n) ?? 0;
    (cols[d] ??= []).push(n);
  }
  return cols.filter(Boolean);
}

const W = 150;
const H = 44;

/** A graph agent drawn as its canvas, the components this run took highlighted. */
export function GraphView({
  client,
  agentId,
  versionId,
  actions,
}: {
  client: SwitchyardClient;
  agentId: string;
  versionId?: string | null;
  actions: RunAction[];
}) {
  // The canvas of the version the run pinned (the draft when it ran one).
  const config = useQuery({
    queryKey: ['agent-config', agentId, versionId ?? 'draft'],
    queryFn: async (): Promise<{ kind?: string; dsl?: unknown } | undefined> => {
      if (versionId) {
        const { versions } = await client.agents.versions(agentId);
        const pinned = versions.find((v) => v.id === versionId);
        if (pinned) {
          return pinned.config;
        }
      }
      return (await client.agents.get(agentId)).draft;
    },
    enabled: /^[0-9a-f-]{36}$/.test(agentId),
  });
  if (config.data?.kind !== 'graph') {
    return null;
  }
  const canvas = canvasOf((config.data.dsl ?? {}) as Dsl);
  if (!canvas) {
    return null;
  }
  const taken = new Set(actions.map((a) => componentIdOfNode(a.node)).filter((id): id is string => !!id));
  const cols = layers(canvas.nodes, canvas.edges);
  const pos = new Map<string, { x: number; y: number }>();
  cols.forEach((col, c) => col.forEach((n, r) => pos.set(n, { x: 10 + c * (W + 50), y: 10 + r * (H + 20) })));
  const width = 20 + cols.length * (W + 50);
  const height = 20 + Math.max(...cols.map((c) => c.length)) * (H + 20);
  return (
    <div className="panel graph" data-testid="graph">
      <h3>Canvas</h3>
      <svg width={width} height={height}>
        {canvas.edges.map(([s, t]) => {
          const a = pos.get(s);
          const b = pos.get(t);
          if (!a || !b) {
            return null;
          }
          const hot = taken.has(s) && taken.has(t);
          return (
            <line
              key={`${s}->${t}`}
              x1={a.x + W}
              y1={a.y + H / 2}
              x2={b.x}
              y2={b.y + H / 2}
              className={hot ? 'edge taken' : 'edge'}
            />
          );
        })}
        {[...canvas.nodes].map(([id, type]) => {
          const p = pos.get(id) as { x: number; y: number };
          return (
            <g
              key={id}
              transform={`translate(${p.x}, ${p.y})`}
              data-testid="graph-node"
              data-taken={taken.has(id)}
              data-runs={isInlineComponent(type) ? 'inline' : 'planner'}
            >
              <rect width={W} height={H} rx="6" className={taken.has(id) ? 'cpn taken' : 'cpn'} />
              <text x="8" y="18" fontSize="12" fontWeight="bold" className="label">
                {type}
              </text>
              <text x="8" y="34" fontSize="11" className="label">
                {id.length > 22 ? `${id.slice(0, 21)}…` : id}
              </text>
              {/* Where it runs: inline in the orchestrator's step, or a task for the planner. */}
              <text x={W - 6} y="14" fontSize="9" textAnchor="end" className="runs-at">
                <title>
                  {isInlineComponent(type)
                    ? "computes on the state alone: runs inside the orchestrator's step (SWITCHYARD_INLINE_NODES)"
                    : 'a task for the planner service, over NATS'}
                </title>
                {isInlineComponent(type) ? 'inline' : 'planner'}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
