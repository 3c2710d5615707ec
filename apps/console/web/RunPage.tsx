import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { RunAction, RunEvent, SwitchyardClient } from '@switchyard/client';
import { TERMINAL, durationMs, fmtTime } from './api';
import { AskUserForm } from './AskUserForm';
import { GraphView } from './GraphView';
import { StateDiff } from './StateDiff';
import { TodoBoard } from './TodoBoard';
import { UsageChart } from './UsageChart';

type Waiting = { question: string; input_schema: Record<string, unknown> };

/** The run's events as they come (from the start, live until `done`, resumed on a dropped connection). */
function useRunEvents(client: SwitchyardClient, runId: string): RunEvent[] {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const queries = useQueryClient();
  useEffect(() => {
    const stop = new AbortController();
    setEvents([]);
    void (async () => {
      try {
        for await (const e of client.events(runId, { signal: stop.signal })) {
          if (e.event_type === 'reset') {
            setEvents([]);
            continue;
          }
          setEvents((prev) => [...prev, e]);
          // The run and its actions are read again when the stream says they changed (no polling).
          if (['action', 'status', 'waiting_for_user', 'done'].includes(e.event_type)) {
            void queries.invalidateQueries({ queryKey: ['run', runId] });
          }
        }
      } catch {
        // aborted (the page was left) or the stream gave up: the run query below polls meanwhile
      } finally {
        // Whatever ended the stream, what is shown is read once more (it may have missed the end).
        if (!stop.signal.aborted) {
          void queries.invalidateQueries({ queryKey: ['run', runId] });
        }
      }
    })();
    return () => stop.abort();
  }, [client, runId, queries]);
  return events;
}

export function RunPage({ client, runId }: { client: SwitchyardClient; runId: string }) {
  const events = useRunEvents(client, runId);
  const run = useQuery({
    queryKey: ['run', runId, 'run'],
    queryFn: () => client.runs.get(runId),
    // The stream refreshes it as the run moves; a slow poll covers a stream that gave up.
    refetchInterval: (q) => (q.state.data && TERMINAL.includes(q.state.data.status) ? false : 5_000),
  });
  // Keyed by what the stream has said so far: an invalidation that lands while the first read is
  // still in flight joins that read (TanStack only cancels a read that already has data), so a run
  // that ends within milliseconds would keep the actions of its first moment. A new action event or
  // a new status is a new key, hence a new read; the previous list stays drawn until it lands.
  const seen = events.filter((e) => e.event_type === 'action').length;
  const actions = useQuery({
    queryKey: ['run', runId, 'actions', seen, run.data?.status],
    queryFn: () => client.runs.actions(runId),
    placeholderData: keepPreviousData,
    // Like the run: a slow poll covers a stream that gave up.
    refetchInterval: run.data && TERMINAL.includes(run.data.status) ? false : 5_000,
  });
  const [open, setOpen] = useState<number | null>(null);
  const [busy, setBusy] = useState('');
  if (run.error) {
    return <p className="error">{run.error.message}</p>;
  }
  if (!run.data) {
    return <p>Loading…</p>;
  }
  const r = run.data;
  const waiting = [...events].reverse().find((e) => e.event_type === 'waiting_for_user')?.payload as
    Waiting | undefined;
  const inFlight = TERMINAL.includes(r.status) ? [] : runningNodes(events);
  const cancel = async () => {
    setBusy('cancelling');
    try {
      await client.runs.cancel(runId);
    } finally {
      setBusy('');
      void run.refetch();
    }
  };
  return (
    <section className="run">
      <div className="run-head">
        <h2>
          Run <span className="mono">{r.run_id}</span>
        </h2>
        <span className={`status ${r.status}`} data-testid="run-status">
          {r.status}
        </span>
        {!TERMINAL.includes(r.status) && (
          <button data-testid="cancel" disabled={!!busy} onClick={() => void cancel()}>
            Cancel run
          </button>
        )}
      </div>
      <dl className="facts">
        <dt>Agent</dt>
        <dd>{r.agent_id}</dd>
        <dt>Thread</dt>
        <dd>
          <a href={`#/`} onClick={() => undefined} className="mono">
            {r.thread_id}
          </a>
        </dd>
        <dt>Created</dt>
        <dd>{fmtTime(r.created_at)}</dd>
        <dt>Took</dt>
        <dd>{durationMs(r.started_at ?? r.created_at, r.finished_at)}</dd>
        <dt>Tokens</dt>
        <dd>{r.usage?.total_tokens ?? 0}</dd>
      </dl>
      {r.error && (
        <p className="error" data-testid="run-error">
          {String((r.error as { code?: string }).code ?? '')}:{' '}
          {String((r.error as { message?: string }).message ?? '')}
        </p>
      )}
      {r.status === 'waiting' && waiting && (
        <AskUserForm
          waiting={waiting}
          onAnswer={(input) => client.runs.resume(runId, input).then(() => run.refetch())}
        />
      )}
      {r.output && (
        <div className="answer" data-testid="answer">
          <h3>Answer</h3>
          <p>{String((r.output as { answer?: unknown }).answer ?? JSON.stringify(r.output))}</p>
        </div>
      )}
      <h3>Timeline</h3>
      <ol className="timeline" data-testid="timeline">
        {(actions.data ?? []).map((a) => (
          <TimelineItem
            key={a.id}
            action={a}
            open={open === a.id}
            onToggle={() => setOpen(open === a.id ? null : a.id)}
            onFork={() => client.threads.fork(r.thread_id, { version: a.id })}
          />
        ))}
        {inFlight.map((s) => (
          <li key={s.task_id} className="action running" data-testid="action-running">
            <span className="node">{s.node}</span> <em>running…</em>
          </li>
        ))}
      </ol>
      <div className="panels">
        <UsageChart
          actions={actions.data ?? []}
          byModel={(r as unknown as { usage_by_model?: never[] }).usage_by_model ?? []}
        />
        <TodoBoard client={client} threadId={r.thread_id} version={(actions.data ?? []).at(-1)?.id} />
      </div>
      <GraphView
        client={client}
        agentId={r.agent_id}
        versionId={r.agent_version_id}
        actions={actions.data ?? []}
      />
      <StateDiff client={client} threadId={r.thread_id} refreshKey={(actions.data ?? []).length} />
    </section>
  );
}

/** Nodes started and not yet answered by an action, in the stream's order. */
function runningNodes(events: RunEvent[]): { node: string; task_id: string }[] {
  const running: { node: string; task_id: string }[] = [];
  for (const e of events) {
    if (e.event_type === 'node_started') {
      running.push(e.payload as { node: string; task_id: string });
    } else if (e.event_type === 'action') {
      const node = (e.payload as { node: string }).node;
      const i = running.findIndex((r) => r.node === node);
      if (i >= 0) {
        running.splice(i, 1);
      }
    }
  }
  return running;
}

function TimelineItem({
  action: a,
  open,
  onToggle,
  onFork,
}: {
  action: RunAction;
  open: boolean;
  onToggle: () => void;
  onFork: () => Promise<{ run: { run_id: string } }>;
}) {
  const [forkError, setForkError] = useState('');
  const fork = async () => {
    setForkError('');
    try {
      const branch = await onFork();
      window.location.hash = `#/runs/${branch.run.run_id}`;
    } catch (err) {
      setForkError((err as Error).message);
    }
  };
  const started = a['started_at'] as string | undefined;
  const finished = a['finished_at'] as string | undefined;
  return (
    <li className={`action ${a.error ? 'failed' : ''}`} data-testid="action" data-node={a.node}>
      <button className="action-head" onClick={onToggle} data-testid="action-toggle">
        <span className="id">#{a.id}</span>
        <span className="node">{a.node}</span>
        <span className="summary">{a.summary}</span>
        <span className="took">{started ? durationMs(started, finished) : ''}</span>
        <span className="tokens">{a.usage?.total_tokens ? `${a.usage.total_tokens} tok` : ''}</span>
      </button>
      {open && (
        <div className="action-detail" data-testid="action-detail">
          {a.error && (
            <p className="error">
              {a.error.code}: {a.error.message}
            </p>
          )}
          <dl>
            <dt>next</dt>
            <dd>{a.next.join(', ') || '—'}</dd>
            {(['preparation', 'relevance', 'attempt', 'started_at', 'finished_at'] as const).map((k) =>
              a[k] === undefined || a[k] === null ? null : (
                <span key={k}>
                  <dt>{k}</dt>
                  <dd>{String(a[k])}</dd>
                </span>
              ),
            )}
            <dt>usage</dt>
            <dd className="mono">{JSON.stringify(a.usage)}</dd>
          </dl>
          <button data-testid="fork" onClick={() => void fork()}>
            Rerun from here (fork at v{a.id})
          </button>
          {forkError && (
            <p className="error" data-testid="fork-error">
              {forkError}
            </p>
          )}
          <h4>result</h4>
          <pre>{JSON.stringify(a.result, null, 2)}</pre>
          {a['context'] !== undefined && (
            <>
              <h4>context</h4>
              <pre>{JSON.stringify(a['context'], null, 2)}</pre>
            </>
          )}
        </div>
      )}
    </li>
  );
}
