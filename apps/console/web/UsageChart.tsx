import type { RunAction } from '@switchyard/client';

type ByModel = {
  model_id: string | null;
  total_tokens?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
};

/** Tokens per node (summed over the run's actions) and per model, as horizontal bars. */
export function UsageChart({ actions, byModel }: { actions: RunAction[]; byModel: ByModel[] }) {
  const perNode = new Map<string, number>();
  for (const a of actions) {
    perNode.set(a.node, (perNode.get(a.node) ?? 0) + (a.usage?.total_tokens ?? 0));
  }
  const rows: [string, number][] = [
    ...[...perNode].filter(([, n]) => n > 0).map(([k, n]): [string, number] => [`node ${k}`, n]),
    ...byModel.map((m): [string, number] => [`model ${m.model_id ?? 'built-in'}`, m.total_tokens ?? 0]),
  ];
  const max = Math.max(1, ...rows.map(([, n]) => n));
  return (
    <div className="panel" data-testid="usage">
      <h3>Token usage</h3>
      {rows.length === 0 ? (
        <p>No tokens used yet.</p>
      ) : (
        <svg width="100%" height={rows.length * 24} role="img" aria-label="tokens per node and model">
          {rows.map(([label, n], i) => (
            <g key={label} transform={`translate(0, ${i * 24})`}>
              <text x="0" y="15" fontSize="12">
                {label}
              </text>
              <rect x="40%" y="3" height="16" width={`${(55 * n) / max}%`} className="bar" />
              <text x="96%" y="15" fontSize="12" textAnchor="end">
                {n}
              </text>
            </g>
          ))}
        </svg>
      )}
    </div>
  );
}
