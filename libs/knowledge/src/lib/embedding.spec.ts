import { DEFAULT_EMBEDDING_MODEL } from '@switchyard/contracts';
import {
  HashEmbeddingModel,
  UnknownEmbeddingModelError,
  cosine,
  embeddingFeatures,
  embeddingModel,
  hashEmbedding,
  normalize,
} from './embedding';

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('hash-embedding-v1', () => {
  it.each([
    ['Hello, World!', ['hello', 'world', 'hello world']],
    ['a b c', ['a', 'b', 'c', 'a b', 'b c']],
    ['Größe 42', ['größe', '42', 'größe 42']],
    ['', []],
    ['  ...  ', []],
  ])('features of %j', (text, features) => {
    expect(embeddingFeatures(text)).toEqual(features);
  });

  it('is deterministic, 256-dimensional and L2-normalised', async () => {
    const model = new HashEmbeddingModel();
    expect(model.name).toBe('hash-embedding-v1');
    expect(model.dimensions).toBe(256);
    const [a, b] = await model.embed(['the quick brown fox', 'the quick brown fox']);
    expect(a).toHaveLength(256);
    expect(a).toEqual(b);
    expect(norm(a)).toBeCloseTo(1, 12);
  });

  it('ignores case and punctuation', () => {
    expect(hashEmbedding('Postgres, JetStream!')).toEqual(hashEmbedding('postgres jetstream'));
  });

  it('gives a text without words a fixed unit vector', () => {
    const v = hashEmbedding('!!!');
    expect(v[0]).toBe(1);
    expect(norm(v)).toBe(1);
  });

  it('makes texts sharing words more similar than unrelated ones', () => {
    const q = hashEmbedding('how do checkpoints work in postgres');
    const related = hashEmbedding('checkpoints are stored in postgres as small deltas');
    const unrelated = hashEmbedding('the cat sat on a warm mat all afternoon');
    expect(cosine(q, related)).toBeGreaterThan(cosine(q, unrelated));
    expect(cosine(q, q)).toBeCloseTo(1, 12);
  });

  it('honours other dimensions', () => {
    expect(hashEmbedding('x y z', 64)).toHaveLength(64);
  });

  it('is found by name; unknown models are named in the error', () => {
    expect(embeddingModel(DEFAULT_EMBEDDING_MODEL)).toBeInstanceOf(HashEmbeddingModel);
    expect(() => embeddingModel('text-embedding-ada-002')).toThrow(UnknownEmbeddingModelError);
    expect(() => embeddingModel('text-embedding-ada-002')).toThrow(
      /text-embedding-ada-002.*hash-embedding-v1/,
    );
  });
});

describe(normalize.name, () => {
  it.each([
    [
      [3, 4],
      [0.6, 0.8],
    ],
    [
      [0, 0, 0],
      [1, 0, 0],
    ],
    [[-2], [-1]],
  ])('%j → %j', (v, expected) => {
    normalize(v).forEach((x, i) => expect(x).toBeCloseTo(expected[i], 12));
  });
});

describe(cosine.name, () => {
  it.each([
    [[1, 0], [1, 0], 1],
    [[1, 0], [0, 1], 0],
    [[1, 0], [-1, 0], -1],
    [[1, 1], [2, 2], 1],
    [[0, 0], [1, 1], 0],
  ])('cos(%j, %j) = %d', (a, b, expected) => {
    expect(cosine(a, b)).toBeCloseTo(expected, 12);
  });

  it('refuses vectors of different dimensions', () => {
    expect(() => cosine([1], [1, 2])).toThrow(/dimensions differ/);
  });
});
