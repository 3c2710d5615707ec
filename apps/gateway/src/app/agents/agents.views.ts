import type { AgentView } from '@switchyard/contracts';
import { shownConfig } from './agent-config.validator';
import type { AgentRow } from './agents.repository';

/** An agent as the API shows it (AgentViewSchema in @switchyard/contracts). */
export function agentView(a: AgentRow): AgentView {
  return {
    id: a.id,
    name: a.name,
    draft: shownConfig(a.draft),
    version: a.latest_version_id,
    version_number: a.latest_version,
    created_at: new Date(a.created_at).toISOString(),
    updated_at: new Date(a.updated_at).toISOString(),
  };
}
