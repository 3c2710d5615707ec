import { type NodeRegistration, type ToolList, toolTypesOf } from '@switchyard/contracts';

/**
 * `GET /v1/tools` (ToolListSchema in @switchyard/contracts): the registry's tools the tenant's runs
 * can be offered — the shared ones and its own (a tenant's MCP tools are listed to it only).
 */
export function toolListView(nodes: readonly NodeRegistration[], tenantId: string): ToolList {
  return {
    tools: nodes
      .filter((n) => n.tool && (n.tenant_id === undefined || n.tenant_id === tenantId))
      .map((n) => ({
        name: n.name,
        description: n.description,
        input_schema: n.input_schema,
        service: n.service,
        idempotent: n.idempotent,
        // Seed 003's types: `call` tools are offered during the work, `output` tools present the answer.
        types: [...toolTypesOf(n)],
      })),
  };
}
