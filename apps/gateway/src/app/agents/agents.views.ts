import type { AgentVersionView, AgentView } from '@switchyard/contracts';
import { shownConfig } from './agent-config.validator';
import type { AgentRow, AgentVersionRow } from './agents.repository';

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

/** A published version as `GET /v1/agents/:id/versions` lists it (AgentVersionSchema). */
export function agentVersionView(agentId: string, v: AgentVersionRow): AgentVersionView {
  return {
    id: v.id,
    version: v.version,
    config: shownConfig(v.config),
    created_at: new Date(v.created_at).toISOString(),
    agent_id: agentId,
  };
}
