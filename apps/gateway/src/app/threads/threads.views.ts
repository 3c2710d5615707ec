import type { ThreadView } from '@switchyard/contracts';
import type { ThreadRecord } from './threads.repository';

/** A thread as the API shows it (ThreadViewSchema in @switchyard/contracts). */
export function threadView(t: ThreadRecord): ThreadView {
  return {
    thread_id: t.id,
    agent_id: t.agent_id,
    created_at: new Date(t.created_at).toISOString(),
    turns: t.turns,
    version: t.version,
    active_run_id: t.active_run_id,
    title: t.title,
  };
}
