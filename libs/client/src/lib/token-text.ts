import type { RunEvent } from '@switchyard/contracts';

/**
 * The text a run's `token` events make, as a reader should assemble it: per task, in the order
 * tasks first streamed; a task's tokens of a higher `attempt` (the task was retried after its
 * earlier attempt died mid-answer) replace that task's earlier text instead of running on after
 * it, and a late token of a replaced attempt is dropped.
 */
/** What a {@link TokenText} holds, as JSON (to keep it across a page's reload). */
export type TokenTextState = [taskId: string, task: { attempt: number; text: string; restarted?: boolean }][];

export class TokenText {
  private readonly tasks: Map<string, { attempt: number; text: string; restarted?: boolean }>;

  constructor(state: TokenTextState = []) {
    this.tasks = new Map(state.map(([id, t]) => [id, { ...t }]));
  }

  /**
   * Takes any run event; `token` events change the text, and a task's `node_started` after it
   * streamed marks a new attempt (whatever its number): that attempt's tokens replace the text.
   * Returns the text so far.
   */
  add(event: Pick<RunEvent, 'event_type' | 'payload'>): string {
    if (event.event_type === 'node_started') {
      const t = this.tasks.get((event.payload as { task_id: string }).task_id);
      if (t) {
        t.restarted = true;
      }
    }
    if (event.event_type === 'token') {
      const p = event.payload as { task_id: string; attempt?: number; text: string };
      const attempt = p.attempt ?? 1;
      const t = this.tasks.get(p.task_id);
      if (!t || attempt > t.attempt || (t.restarted && attempt === t.attempt)) {
        this.tasks.set(p.task_id, { attempt, text: p.text });
      } else if (attempt === t.attempt) {
        t.text += p.text;
      }
    }
    return this.text;
  }

  get text(): string {
    return [...this.tasks.values()].map((t) => t.text).join('');
  }

  /** The text's making so far, to carry on from with `new TokenText(state)`. */
  state(): TokenTextState {
    return [...this.tasks.entries()].map(([id, t]) => [id, { ...t }]);
  }
}
