import { createHash } from 'node:crypto';
import { MCP_NODE_PREFIX } from '@switchyard/contracts';

// OpenAI function names are ^[a-zA-Z0-9_-]{1,64}$; the planner offers `mcp.<server>.<tool>` as
// `mcp__<server>__<tool>`, so the whole node name must fit in 64 characters that way and neither
// segment may hold `__` (the mapping back would split there).
const MAX_FUNCTION_NAME = 64;

function shortHash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 6);
}

/** One tool name as a node-name segment: lower-case, [a-z0-9_-], no `__`, no edge `_`. */
export function toolSegment(tool: string, maxLength: number): string {
  const base =
    tool
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .replace(/_+/g, '_')
      .replace(/^[_-]+|_+$/g, '') || 'tool';
  if (base.length <= maxLength) {
    return base;
  }
  // Too long: a prefix plus a hash of the real name keeps distinct long names distinct.
  return `${base.slice(0, maxLength - 7).replace(/_+$/, '')}_${shortHash(tool)}`;
}

/**
 * The node names of a server's tools, `mcp.<server>.<segment>`, mapped to the real tool names.
 * Deterministic (sorted) so every replica derives the same names; two tools that sanitize to the
 * same segment (`getSum`, `get-sum`?) are told apart by a hash of the real name.
 */
export function mcpNodeNames(server: string, tools: readonly string[]): Map<string, string> {
  const prefix = `${MCP_NODE_PREFIX}.${server}.`;
  const maxSegment = MAX_FUNCTION_NAME - `${MCP_NODE_PREFIX}__${server}__`.length;
  if (maxSegment < 8) {
    throw new Error(`MCP server name "${server}" leaves no room for tool names`);
  }
  const out = new Map<string, string>();
  for (const tool of [...new Set(tools)].sort()) {
    let segment = toolSegment(tool, maxSegment);
    if (out.has(prefix + segment)) {
      segment = `${segment.slice(0, maxSegment - 7).replace(/_+$/, '')}_${shortHash(tool)}`;
    }
    out.set(prefix + segment, tool);
  }
  return out;
}
