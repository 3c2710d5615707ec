import { OpenAIEmbeddings } from '@langchain/openai';
import type { Usage } from '@switchyard/contracts';
import { currentLlmCallContext } from './llm-call-context';
import { LlmCallException } from './llm-errors';
import type { CallTarget, ModelRouter } from './model-router';
import type { RegistryKey } from './registry.store';

/** What knowledge needs of an embedding model (structurally `EmbeddingModel` of libs/knowledge). */
export interface RegistryEmbeddingModel {
  readonly name: string;
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** Who an embedding call works for: the tenant pays; a run's task when there is one. */
export interface EmbeddingScope {
  tenant_id: string;
}

// Inputs per request: well under every OpenAI-compatible server's limit (OpenAI: 2048).
const BATCH = 256;

/**
 * OpenAI-compatible embeddings that also return the usage the server reported: langchain's
 * `embedDocuments` drops it, but `embeddingWithRetry` answers the raw response (one request, no
 * retries of its own: failover to the next key happens here).
 */
class MeteredOpenAIEmbeddings extends OpenAIEmbeddings {
  async embedWithUsage(texts: string[]): Promise<{ vectors: number[][]; usage: Usage }> {
    const res = await this.embeddingWithRetry({ model: this.model, input: texts });
    const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding as number[]);
    if (vectors.length !== texts.length) {
      throw new LlmCallException(
        `the embedding server answered ${vectors.length} vectors for ${texts.length} inputs`,
        'llm_bad_reply',
        false,
      );
    }
    const prompt = res.usage?.prompt_tokens ?? 0;
    return {
      vectors,
      usage: { prompt_tokens: prompt, completion_tokens: 0, total_tokens: res.usage?.total_tokens ?? prompt },
    };
  }
}

type Embedder = (texts: string[]) => Promise<{ vectors: number[][]; usage: Usage }>;

/**
 * Embedding models of the model registry (category `embedding`), for knowledge ingestion and
 * search: the same key choice, failover (429 rests the key, 401/403 quarantines it, 5xx tries the
 * next), budget check and metering (model_usage, role `embedding`) as chat calls. OpenAI-compatible
 * and Ollama vendors serve embeddings; Anthropic has no embeddings API.
 */
export class EmbeddingModels {
  constructor(private readonly router: ModelRouter) {}

  /** The registry model of this name, bound to a tenant; undefined when the registry has none. */
  async model(name: string, scope: EmbeddingScope): Promise<RegistryEmbeddingModel | undefined> {
    const target = await this.router.resolveEmbedding(name, scope.tenant_id, currentLlmCallContext());
    if (!target) {
      return undefined;
    }
    if (target.vendor.kind === 'anthropic') {
      throw new LlmCallException(
        `embedding model "${name}" belongs to vendor "${target.vendor.name}" of kind anthropic, which serves no embeddings`,
        'model_not_embedding',
        false,
      );
    }
    return { name, embed: (texts) => this.embed(target, texts) };
  }

  private async embed(target: CallTarget, texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      out.push(...(await this.embedBatch(target, texts.slice(i, i + BATCH))));
    }
    return out;
  }

  private async embedBatch(target: CallTarget, texts: string[]): Promise<number[][]> {
    const failover = await this.router.begin(target, 0);
    for (;;) {
      const key = await failover.nextKey();
      try {
        const { vectors, usage } = await (await this.client(target, key))(texts);
        await failover.succeeded({ key }, usage);
        return vectors;
      } catch (err) {
        await failover.failed({ key }, err);
      }
    }
  }

  private client(target: CallTarget, key: RegistryKey | null): Promise<Embedder> {
    return this.router.cachedClient(target, key, 'embeddings', () => this.build(target, key));
  }

  private async build(target: CallTarget, key: RegistryKey | null): Promise<Embedder> {
    const apiKey = key ? this.router.store.openSecret(key) : undefined;
    const timeout = this.router.timeoutMs;
    if (target.vendor.kind === 'ollama') {
      const { OllamaEmbeddings } = await import('@langchain/ollama');
      const ollama = new OllamaEmbeddings({
        model: target.model.name,
        ...(target.baseUrl ? { baseUrl: target.baseUrl } : {}),
        ...(apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {}),
        maxRetries: 0,
      });
      // Ollama's embed API reports no token counts through langchain: metered as zero tokens.
      return async (texts) => ({
        vectors: await ollama.embedDocuments(texts),
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
    }
    const openai = new MeteredOpenAIEmbeddings({
      model: target.model.name,
      apiKey: apiKey ?? 'none',
      configuration: target.baseUrl ? { baseURL: target.baseUrl } : undefined,
      timeout,
      maxRetries: 0,
    });
    return (texts) => openai.embedWithUsage(texts);
  }
}
