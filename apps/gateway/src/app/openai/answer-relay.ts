/**
 * What an OpenAI stream may forward of an answer node's tokens. A chunk cannot be taken back, so
 * when a task's tokens come again from a retried attempt (the earlier one died mid-answer), the
 * retry's text is held until it reaches the end of what was already sent: if it repeats that
 * text, only what comes after is forwarded (the client's text is then exactly the retry's); if
 * it says something else, the client's text cannot be mended and the stream must end with an
 * error (`diverged`) — never the two attempts' texts run together.
 */
export class AnswerRelay {
  private readonly tasks = new Map<string, { attempt: number; sent: string; replay: string | null }>();

  /**
   * The task started again (its `node_started` came after it streamed): what it streams next is a
   * new attempt, held as a retry — however the attempt is numbered.
   */
  started(taskId: string): void {
    const t = this.tasks.get(taskId);
    if (t && t.sent) {
      t.replay = '';
    }
  }

  /** The text to forward for this token ('' for none), or `diverged`. */
  accept(token: { task_id: string; attempt?: number; text: string }): string | { diverged: true } {
    const attempt = token.attempt ?? 1;
    let t = this.tasks.get(token.task_id);
    if (!t) {
      t = { attempt, sent: '', replay: null };
      this.tasks.set(token.task_id, t);
    }
    if (attempt < t.attempt) {
      // A straggler of an attempt already replaced.
      return '';
    }
    if (attempt > t.attempt) {
      t.attempt = attempt;
      t.replay = '';
    }
    if (t.replay === null) {
      t.sent += token.text;
      return token.text;
    }
    t.replay += token.text;
    if (t.sent.startsWith(t.replay)) {
      return '';
    }
    if (t.replay.startsWith(t.sent)) {
      const rest = t.replay.slice(t.sent.length);
      t.sent = t.replay;
      t.replay = null;
      return rest;
    }
    return { diverged: true };
  }
}
