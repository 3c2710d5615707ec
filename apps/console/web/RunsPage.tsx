import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ListRunsQuery, SwitchyardClient } from '@switchyard/client';
import { durationMs, fmtTime } from './api';

const STATUSES = ['', 'queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'];

/** The tenant's runs, newest first, filtered, with live status (refetched every 2 s). */
export function RunsPage({ client }: { client: SwitchyardClient }) {
  const [filters, setFilters] = useState<ListRunsQuery>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const query = { ...filters, limit: 25, cursor: cursors.at(-1) };
  const runs = useQuery({
    queryKey: ['runs', query],
    queryFn: () => client.runs.list(query),
    refetchInterval: 2000,
  });
  const set = (patch: Partial<ListRunsQuery>) => {
    setCursors([]);
    setFilters((f) => ({ ...f, ...patch }));
  };
  return (
    <section>
      <NewRun client={client} />
      <h2>Runs</h2>
      <div className="filters">
        <label>
          Status
          <select
            data-testid="filter-status"
            value={filters.status ?? ''}
            onChange={(e) => set({ status: e.target.value || undefined })}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <input
            data-testid="filter-agent"
            placeholder="agent id"
            value={filters.agent_id ?? ''}
            onChange={(e) => set({ agent_id: e.target.value.trim() || undefined })}
          />
        </label>
        <label>
          Thread
          <input
            data-testid="filter-thread"
            placeholder="thread id"
            value={filters.thread_id ?? ''}
            onChange={(e) => set({ thread_id: e.target.value.trim() || undefined })}
          />
        </label>
        <label>
          Since
          <input
            type="datetime-local"
            data-testid="filter-since"
            onChange={(e) =>
              set({ since: e.target.value ? new Date(e.target.value).toISOString() : undefined })
            }
          />
        </label>
      </div>
      {runs.error && <p className="error">{String(runs.error.message)}</p>}
      <table data-testid="runs">
        <thead>
          <tr>
            <th>Run</th>
            <th>Status</th>
            <th>Agent</th>
            <th>Thread</th>
            <th>Created</th>
            <th>Took</th>
            <th>Steps</th>
            <th>Tokens</th>
          </tr>
        </thead>
        <tbody>
          {(runs.data?.runs ?? []).map((r) => (
            <tr key={r.run_id} data-testid="run-row" data-run={r.run_id} data-status={r.status}>
              <td>
                <a href={`#/runs/${r.run_id}`}>{r.run_id.slice(0, 8)}</a>
              </td>
              <td>
                <span className={`status ${r.status}`}>{r.status}</span>
              </td>
              <td>{r.agent_id}</td>
              <td className="mono">{r.thread_id.slice(0, 8)}</td>
              <td>{fmtTime(r.created_at)}</td>
              <td>{durationMs(r.started_at ?? r.created_at, r.finished_at)}</td>
              <td>{String(r['steps'] ?? '')}</td>
              <td>{r.usage?.total_tokens ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="pager">
        <button disabled={!cursors.length} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button
          disabled={!runs.data?.next_cursor}
          onClick={() => runs.data?.next_cursor && setCursors((c) => [...c, runs.data.next_cursor as string])}
        >
          Older
        </button>
      </div>
    </section>
  );
}

/** Starts a run of an agent (the built-in one by default) and opens it. */
function NewRun({ client }: { client: SwitchyardClient }) {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => client.agents.list() });
  const [agent, setAgent] = useState('default');
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    try {
      const run = await client.runs.create({ agent_id: agent, input: { prompt } });
      window.location.hash = `#/runs/${run.run_id}`;
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form className="new-run" onSubmit={(e) => void submit(e)}>
      <select data-testid="new-run-agent" value={agent} onChange={(e) => setAgent(e.target.value)}>
        <option value="default">default</option>
        {(agents.data ?? []).map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </select>
      <input
        data-testid="new-run-prompt"
        placeholder="Ask something…"
        value={prompt}
        onChange={(e) => setPrompt(e.target.value)}
      />
      <button data-testid="new-run-start" disabled={!prompt.trim()}>
        Start run
      </button>
      {error && <span className="error">{error}</span>}
    </form>
  );
}
