import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './repo-root';

/** The skeleton script's long answer: 40 words. */
export const LONG_ANSWER = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

/**
 * The skeleton script with its long answer (`[long-answer]` prompts) streamed slowly, a chunk
 * every `chunkDelayMs`: a reload, a drop or a second tab happens while it is being written.
 * Answers the script's path relative to the repository (as TestStack takes it).
 */
export function slowLongAnswerScript(chunkDelayMs: number): string {
  const script = JSON.parse(
    readFileSync(join(REPO_ROOT, 'apps/gateway/test/fixtures/skeleton.script.json'), 'utf8'),
  ) as { rules: { name: string; reply: Record<string, unknown> }[] };
  const long = script.rules.find((r) => r.name === 'output-long');
  if (!long || long.reply['content'] !== LONG_ANSWER) {
    throw new Error('the skeleton script no longer has the long answer (rule output-long) this expects');
  }
  long.reply['chunk_delay_ms'] = chunkDelayMs;
  const dir = mkdtempSync(join(REPO_ROOT, 'tmp', 'slow-answer-'));
  writeFileSync(join(dir, 'slow.script.json'), JSON.stringify(script));
  return relative(REPO_ROOT, join(dir, 'slow.script.json'));
}
