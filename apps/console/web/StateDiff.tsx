import { useQuery } from '@tanstack/react-query';
import { compare } from 'fast-json-patch';
import { useState } from 'react';
import type { SwitchyardClient } from '@switchyard/client';

/** The thread's state at any version, and the changes (JSON Patch) from one version to another. */
export function StateDiff({
  client,
  threadId,
  refreshKey,
}: {
  client: SwitchyardClient;
  threadId: string;
  refreshKey: number;
}) {
  const versions = useQuery({
    queryKey: ['versions', threadId, refreshKey],
    queryFn: () => client.threads.versions(threadId, { limit: 100 }),
  });
  const list = versions.data ?? [];
  // Until a version is picked, To follows the newest version and From the one before it.
  const [picked, setPicked] = useState<{ from?: number; to?: number }>({});
  const to = picked.to ?? list[0]?.version;
  const from = picked.from ?? list[1]?.version ?? to;
  const setFrom = (v: number) => setPicked((p) => ({ ...p, from: v }));
  const setTo = (v: number) => setPicked((p) => ({ ...p, to: v }));
  const left = useQuery({
    queryKey: ['state', threadId, from],
    queryFn: () => client.threads.state(threadId, from),
    enabled: from !== undefined,
  });
  const right = useQuery({
    queryKey: ['state', threadId, to],
    queryFn: () => client.threads.state(threadId, to),
    enabled: to !== undefined,
  });
  const ops = left.data && right.data ? compare(left.data, right.data) : [];
  const pick = (value: number | undefined, set: (v: number) => void, testid: string) => (
    <select data-testid={testid} value={value ?? ''} onChange={(e) => set(Number(e.target.value))}>
      {list.map((v) => (
        <option key={v.version} value={v.version}>
          v{v.version} {v.node ?? ''}
        </option>
      ))}
    </select>
  );
  return (
    <div className="panel state" data-testid="state">
      <h3>State</h3>
      <div className="filters">
        <label>From {pick(from, setFrom, 'diff-from')}</label>
        <label>To {pick(to, setTo, 'diff-to')}</label>
      </div>
      <table data-testid="diff">
        <thead>
          <tr>
            <th>op</th>
            <th>path</th>
            <th>value</th>
          </tr>
        </thead>
        <tbody>
          {ops.map((o, i) => (
            <tr key={i} data-testid="diff-op">
              <td>{o.op}</td>
              <td className="mono">{o.path}</td>
              <td className="mono">{'value' in o ? JSON.stringify(o.value).slice(0, 300) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {ops.length === 0 && <p>No changes between these versions.</p>}
      <details>
        <summary>State at v{to}</summary>
        <pre data-testid="state-json">{right.data ? JSON.stringify(right.data, null, 2) : ''}</pre>
      </details>
    </div>
  );
}
