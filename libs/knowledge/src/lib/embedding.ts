import { DEFAULT_EMBEDDING_MODEL, type RunErrorCode } from '@switchyard/contracts';
/**
 * Embedding models. `hash-embedding-v1` is the built-in deterministic offline model: lower-cased
 * word unigrams and bigrams hashed (FNV-1a, signed buckets) into 256 dimensions, L2-normalised.
 * Texts sharing words come out similar, no network. Other names are looked up in the model
 * registry (category `embedding`) through an `EmbeddingResolver`.
 */
export interface EmbeddingModel {
  readonly name: string;
  /** Known up front for built-in models; a remote model's vectors tell theirs. */
  readonly dimensions?: number;
  embed(texts: readonly string[]): Promise<number[][]>;
}

/**
 * Finds a non-built-in embedding model for a tenant (the registry's, who pays for the calls);
 * undefined when nobody provides that name.
 */
export type EmbeddingResolver = (
  name: string,
  scope: { tenant_id: string },
) => Promise<EmbeddingModel | undefined>;

export const HASH_EMBEDDING_DIMENSIONS = 256;

/** An embedding model nobody provides (yet): ingestion marks the index set failed with this reason. */
export class UnknownEmbeddingModelError extends Error {
  readonly code = 'unknown_embedding_model' satisfies RunErrorCode;
  readonly retryable = false;
  constructor(readonly model: string) {
    super(
      `unknown embedding model "${model}" (built in: ${[...BUILT_IN.keys()].join(', ')}; ` +
        'others must be registered in the model registry with category "embedding")',
    );
    this.name = 'UnknownEmbeddingModelError';
  }
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The features the hash model sees: lower-cased words, then adjacent word pairs. */
export function embeddingFeatures(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const bigrams = words.slice(1).map((w, i) => `${words[i]} ${w}`);
  return [...words, ...bigrams];
}

export function hashEmbedding(text: string, dimensions = HASH_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const feature of embeddingFeatures(text)) {
    const h = fnv1a(feature);
    // The sign bit keeps colliding features from always adding up (the usual hashing trick).
    vector[h % dimensions] += h >= 0x80000000 ? -1 : 1;
  }
  return normalize(vector);
}

/** L2-normalises a vector; a zero vector becomes the first unit vector so cosine stays defined. */
export function normalize(vector: readonly number[]): number[] {
  let sum = 0;
  for (const v of vector) {
    sum += v * v;
  }
  const norm = Math.sqrt(sum);
  if (norm === 0 || !Number.isFinite(norm)) {
    return vector.map((_, i) => (i === 0 ? 1 : 0));
  }
  return vector.map((v) => v / norm);
}

/** Cosine similarity of two vectors of the same length (0 when either is zero). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) {
    throw new Error(`cosine: dimensions differ (${a.length} vs ${b.length})`);
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export class HashEmbeddingModel implements EmbeddingModel {
  readonly name = DEFAULT_EMBEDDING_MODEL;
  readonly dimensions = HASH_EMBEDDING_DIMENSIONS;

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((t) => hashEmbedding(t, this.dimensions));
  }
}

const BUILT_IN = new Map<string, EmbeddingModel>([[DEFAULT_EMBEDDING_MODEL, new HashEmbeddingModel()]]);

/** The built-in embedding model of a name; throws UnknownEmbeddingModelError when none provides it. */
export function embeddingModel(name: string): EmbeddingModel {
  const model = BUILT_IN.get(name);
  if (!model) {
    throw new UnknownEmbeddingModelError(name);
  }
  return model;
}

/**
 * The embedding model of a name for a tenant: built in first, else what the resolver (the model
 * registry) provides; throws UnknownEmbeddingModelError when neither does.
 */
export async function resolveEmbeddingModel(
  name: string,
  scope: { tenant_id: string },
  resolver?: EmbeddingResolver,
): Promise<EmbeddingModel> {
  const model = BUILT_IN.get(name) ?? (await resolver?.(name, scope));
  if (!model) {
    throw new UnknownEmbeddingModelError(name);
  }
  return model;
}
