import { z } from 'zod';

export const CategorizeParamsSchema = z
  .object({
    category_description: z
      .record(
        z.string().min(1, 'a category needs a name'),
        z
          .object({
            description: z.string().nullish(),
            examples: z.array(z.unknown()).nullish(),
            to: z.array(z.string()).min(1, "a category's 'to' can not be empty"),
          })
          .passthrough(),
      )
      .refine((v) => Object.keys(v).length > 0, 'a Categorize needs at least one category'),
    query: z.string().nullish(),
    message_history_window_size: z.number().int().positive().nullish(),
    llm_id: z.string().nullish(),
  })
  .passthrough();
export type CategorizeParams = z.infer<typeof CategorizeParamsSchema>;

/** RAGFlow Categorize's system prompt: the categories, their descriptions and examples. */
export function categorizeSystemPrompt(params: CategorizeParams): string {
  const entries = Object.entries(params.category_description);
  const examples: string[] = [];
  for (const [name, desc] of entries) {
    for (const line of desc.examples ?? []) {
      if (!line) {
        continue;
      }
      examples.push(`USER: "${String(line).replace(/\n/g, '    ')}" → ${name}`);
    }
  }
  const descriptions = entries
    .filter(([, d]) => d.description)
    .map(([name, d]) => `\n------\nCategory: ${name}\nDescription: ${d.description}`);
  let prompt = `
You are an advanced classification system that categorizes user questions into specific types. Analyze the input question and classify it into ONE of the following categories:
${entries.map(([name]) => name).join('\n - ')}

Here's description of each category:
 - ${descriptions.join('\n')}

---- Instructions ----
 - Consider both explicit mentions and implied context
 - Prioritize the most specific applicable category
 - Return only the category name without explanations
 - Use "Other" only when no other category fits

 `;
  if (examples.length) {
    prompt += `
---- Examples ----
${examples.join('\n')}
`;
  }
  return prompt;
}

/** The user message: the history window with its last entry replaced by the query. */
export function categorizeUserPrompt(history: { role: string; content: string }[], query: string): string {
  const window = history.length ? history.map((m) => ({ ...m })) : [{ role: 'user', content: '' }];
  window[window.length - 1].content = query;
  const lines = window.map((m) => `${m.role.toUpperCase()}: "${m.content.replace(/\n/g, '')}"`);
  return `
---- Real Data ----
${lines.join(' | ')} →
`;
}

function countOccurrences(haystack: string, needle: string): number {
  if (!needle) {
    // Python's str.count("") is len + 1.
    return haystack.length + 1;
  }
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    count++;
  }
  return count;
}

/** What a Categorize decided: the category and where the canvas goes next. */
export interface CategoryDecision {
  category: string;
  next: string[];
}

/**
 * RAGFlow's rule: the category whose name occurs most often in the answer (case-insensitive,
 * non-overlapping count); a tie goes to the one declared first; with no occurrence at all, the
 * last category (name and targets; RAGFlow's golden `customer_feedback_dispatcher.negative_exact_label`).
 */
export function pickCategory(params: CategorizeParams, answer: string): CategoryDecision {
  const entries = Object.entries(params.category_description);
  const lower = answer.toLowerCase();
  const counts = entries.map(([name]) => countOccurrences(lower, name.toLowerCase()));
  if (!counts.some((c) => c > 0)) {
    const [name, last] = entries[entries.length - 1];
    return { category: name, next: last.to };
  }
  let best = 0;
  counts.forEach((c, i) => {
    if (c > counts[best]) {
      best = i;
    }
  });
  return { category: entries[best][0], next: entries[best][1].to };
}
