import { LRUCache } from 'lru-cache';

// Binding tools or a response format to a langchain chat model is not free: ChatOpenAI's
// `withConfig` (behind `bindTools` and a structured call's binding) builds a whole new ChatOpenAI
// with its own OpenAI SDK client, which the call then sets up again. A node calls with the same
// tools or schema every time, so each client keeps the bindings it was asked for, by what was
// bound. Bounded per client; a client's bindings go when the client does.
const MAX_PER_CLIENT = 32;
const bindings = new WeakMap<object, LRUCache<string, object>>();

/**
 * `bind()` once per client and key, the result shared by every later call with the same key;
 * without a key (what was bound cannot be written as JSON) every call binds anew.
 */
export function boundOnce<T extends object>(client: object, key: string | undefined, bind: () => T): T {
  if (key === undefined) {
    return bind();
  }
  let cache = bindings.get(client);
  if (!cache) {
    cache = new LRUCache<string, object>({ max: MAX_PER_CLIENT });
    bindings.set(client, cache);
  }
  let bound = cache.get(key) as T | undefined;
  if (!bound) {
    bound = bind();
    cache.set(key, bound);
  }
  return bound;
}

/** What was bound, as a cache key: its JSON, or undefined when it has none (a cycle, a BigInt). */
export function bindingKey(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
