import { useQuery } from '@tanstack/react-query';
import type { SwitchyardClient } from '@switchyard/client';

type Todo = {
  id: string;
  task: string;
  status: string;
  dependencies?: string[];
  priority?: number;
  critical_path_length?: number;
  retry?: number;
};

/**
 * The turn's todo board from the thread's state: each todo's status and dependencies; the
 * critical path (the longest chain of dependents) marked.
 */
export function TodoBoard({
  client,
  threadId,
  version,
}: {
  client: SwitchyardClient;
  threadId: string;
  version?: number;
}) {
  const state = useQuery({
    queryKey: ['state', threadId, version ?? 'latest'],
    queryFn: () => client.threads.state(threadId, version),
  });
  const s = state.data as { todos?: Todo[][]; turn?: number } | undefined;
  const todos = s?.todos?.[s.turn ?? 0] ?? [];
  const longest = Math.max(0, ...todos.map((t) => t.critical_path_length ?? 0));
  return (
    <div className="panel" data-testid="todos">
      <h3>Todos</h3>
      {todos.length === 0 ? (
        <p>No todos in this turn.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>id</th>
              <th>task</th>
              <th>status</th>
              <th>after</th>
            </tr>
          </thead>
          <tbody>
            {todos.map((t) => (
              <tr key={t.id} className={longest > 0 && t.critical_path_length === longest ? 'critical' : ''}>
                <td className="mono">{t.id}</td>
                <td>{t.task}</td>
                <td>
                  <span className={`status ${t.status}`}>{t.status}</span>
                </td>
                <td>{(t.dependencies ?? []).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
