// Deterministic stand-in embeddings: lower-cased word unigrams and bigrams hashed into a fixed number
// of signed buckets, then L2-normalised. Texts sharing words come out similar, with no model at all.

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function embeddingFeatures(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const bigrams = words.slice(1).map((w, i) => `${words[i]} ${w}`);
  return [...words, ...bigrams];
}

export function hashEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const feature of embeddingFeatures(text)) {
    const h = fnv1a(feature);
    // The sign bit keeps colliding features from always adding up (the usual hashing trick).
    vector[h % dimensions] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...vector);
  // A text without words gets a fixed unit vector so cosine similarity stays defined.
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((v) => v / norm);
}

/** OpenAI's `encoding_format: "base64"`: little-endian float32 bytes, what the openai SDK asks for by default. */
export function embeddingToBase64(vector: number[]): string {
  const floats = Float32Array.from(vector);
  const bytes = Buffer.alloc(floats.length * 4);
  floats.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}
