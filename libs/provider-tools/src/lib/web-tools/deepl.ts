import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolSpec, emptyResult, getJson, shapeOf } from './web-tool';

const SOURCE_LANGS =
  'AR BG CS DA DE EL EN ES ET FI FR HU ID IT JA KO LT LV NB NL PL PT RO RU SK SL SV TR UK ZH'.split(' ');
const TARGET_LANGS =
  'AR BG CS DA DE EL EN-GB EN-US ES ET FI FR HU ID IT JA KO LT LV NB NL PL PT-BR PT-PT RO RU SK SL SV TR UK ZH'.split(
    ' ',
  );

const FREE_API = 'https://api-free.deepl.com';
const PRO_API = 'https://api.deepl.com';

// DeepL's translate API: one translation per text sent.
const TranslateSchema = z
  .object({
    translations: z
      .array(z.object({ text: z.string(), detected_source_language: z.string().optional() }).passthrough())
      .min(1),
  })
  .passthrough();

/**
 * RAGFlow agent/tools/deepl.py: the query translated from source_lang into target_lang, as the
 * text `formalized_content`. The key is the tenant's `deepl` key; at the default base URL a key
 * without DeepL's free-plan suffix `:fx` goes to the Pro API, as the deepl package does.
 */
export const DEEPL: WebToolSpec = {
  component: 'DeepL',
  functionName: 'deepl_translate',
  envName: 'DEEPL',
  defaultBaseUrl: FREE_API,
  key: { provider: 'deepl', required: true },
  description: 'DeepL translates text into a target language using the DeepL translation service.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'The text to translate.' },
    },
    required: ['query'],
  },
  inputs: { query: '{sys.query}' },
  defaults: { source_lang: 'ZH', target_lang: 'EN-GB' },
  async call(ctx, args) {
    const text = String(args['query'] ?? '');
    if (!text) {
      return emptyResult('DeepL');
    }
    const sourceLang = String(ctx.params['source_lang']);
    if (!SOURCE_LANGS.includes(sourceLang)) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `DeepL: source_lang "${sourceLang}" is not one of ${SOURCE_LANGS.join(', ')}`,
      );
    }
    const targetLang = String(ctx.params['target_lang']);
    if (!TARGET_LANGS.includes(targetLang)) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `DeepL: target_lang "${targetLang}" is not one of ${TARGET_LANGS.join(', ')}`,
      );
    }
    if (!ctx.apiKey) {
      throw new ProviderException(ProviderErrorCode.NoKey, 'DeepL: the tenant has no deepl key');
    }
    const base = ctx.baseUrl === FREE_API && !ctx.apiKey.endsWith(':fx') ? PRO_API : ctx.baseUrl;
    const body = shapeOf(
      TranslateSchema,
      await getJson(ctx, 'DeepL', `${base}/v2/translate`, {
        method: 'POST',
        headers: { Authorization: `DeepL-Auth-Key ${ctx.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: [text], source_lang: sourceLang, target_lang: targetLang }),
      }),
      'DeepL answered without a translation',
    );
    const translated = body.translations[0]!.text;
    return {
      outputs: { formalized_content: translated },
      answer: translated,
      summary: `DeepL: translated into ${targetLang}`,
    };
  },
};
