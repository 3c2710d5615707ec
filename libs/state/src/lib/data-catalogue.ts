import type { RuntimeState } from '@switchyard/contracts';

const MAX_KEPT = 20;

/**
 * Seed 001's data catalogue: the thread's tool outputs too large for their action (shrunk there,
 * kept whole by reference), newest first, with their size and shape, so the planner (or the output node) can ask
 * `extract_data_by_path` for the part it needs (a row, a column, a field) instead of guessing
 * from the preview.
 */
export function dataCatalogue(state: Readonly<RuntimeState>): string {
  const lines: string[] = [];
  for (let turn = state.action_history.length - 1; turn >= 0 && lines.length < MAX_KEPT; turn--) {
    const actions = state.action_history[turn] ?? [];
    for (let i = actions.length - 1; i >= 0 && lines.length < MAX_KEPT; i--) {
      const a = actions[i];
      const r = a.result as {
        output_truncated?: unknown;
        reference?: unknown;
        output_bytes?: unknown;
        output_shape?: unknown;
      } | null;
      if (r && typeof r === 'object' && r.output_truncated === true && typeof r.reference === 'string') {
        const size = typeof r.output_bytes === 'number' ? `${r.output_bytes} bytes` : 'size unknown';
        const shape = typeof r.output_shape === 'string' ? `, ${r.output_shape}` : '';
        lines.push(
          `- action #${a.id} (${a.node}${turn === state.turn ? '' : `, turn ${turn + 1}`}): ${r.reference} — ${size}${shape}`,
        );
      }
    }
  }
  return lines.length
    ? `Data kept whole (its action shows a preview only). Read the part you need with extract_data_by_path {reference, path}, path a pointer such as /rows/3999 (the 4,000th row):\n${lines.join('\n')}`
    : '';
}
