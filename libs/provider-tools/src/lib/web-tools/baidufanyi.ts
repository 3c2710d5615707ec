import { createHash, randomInt } from 'node:crypto';
import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolCall, type WebToolSpec, emptyResult, getJson, shapeOf } from './web-tool';

const TRANS_TYPES = ['translate', 'fieldtranslate'];
const LANGS =
  'auto zh en yue wyw jp kor fra spa th ara ru pt de it el nl pl bul est dan fin cs rom slo swe hu cht vie'.split(
    ' ',
  );
const DOMAINS = 'it finance machinery senimed novel academic aerospace wiki news law contract'.split(' ');

// Baidu's translate API answers one result per line of the text, or an error code and message
// (with HTTP 200).
const TranslateSchema = z
  .object({
    error_code: z.union([z.string(), z.number()]).optional(),
    error_msg: z.string().optional(),
    trans_result: z.array(z.object({ src: z.string(), dst: z.string() }).passthrough()).optional(),
  })
  .passthrough();

// Error codes that are about the account (key, sign, IP) or may pass (timeout, rate, server).
const UNAUTHORIZED = new Set(['52003', '54001', '58000', '90107']);
const UNAVAILABLE = new Set(['52001', '52002', '54003']);

function oneOf(ctx: WebToolCall, name: string, allowed: string[]): string {
  const v = String(ctx.params[name]);
  if (!allowed.includes(v)) {
    throw new ProviderException(
      ProviderErrorCode.InvalidInput,
      `BaiduFanyi: ${name} "${v}" is not one of ${allowed.join(', ')}`,
    );
  }
  return v;
}

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

/**
 * RAGFlow's BaiduFanyi (agent/component/baidufanyi.py before the agent redesign, which dropped
 * it; its meta here follows the DeepL tool's): the query translated by Baidu's general
 * (`translate`) or domain (`fieldtranslate`, in `domain`) API, as the text `formalized_content`.
 * The tenant's `baidu_fanyi` key is `appid:secret_key`; each request is signed with
 * md5(appid + q + salt [+ domain] + secret_key).
 */
export const BAIDU_FANYI: WebToolSpec = {
  component: 'BaiduFanyi',
  functionName: 'baidufanyi_translate',
  envName: 'BAIDUFANYI',
  defaultBaseUrl: 'https://fanyi-api.baidu.com',
  key: { provider: 'baidu_fanyi', required: true },
  description:
    'BaiduFanyi translates text into a target language using the Baidu translation service (https://fanyi.baidu.com/).',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'The text to translate.' },
    },
    required: ['query'],
  },
  inputs: { query: '{sys.query}' },
  defaults: { trans_type: 'translate', source_lang: 'auto', target_lang: 'auto', domain: 'finance' },
  async call(ctx, args) {
    const q = String(args['query'] ?? '');
    if (!q) {
      return emptyResult('BaiduFanyi');
    }
    const transType = oneOf(ctx, 'trans_type', TRANS_TYPES);
    const from = oneOf(ctx, 'source_lang', LANGS);
    const to = oneOf(ctx, 'target_lang', LANGS);
    const domain = oneOf(ctx, 'domain', DOMAINS);
    const colon = (ctx.apiKey ?? '').indexOf(':');
    const appid = (ctx.apiKey ?? '').slice(0, Math.max(colon, 0));
    const secret = (ctx.apiKey ?? '').slice(colon + 1);
    if (colon <= 0 || !secret) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        'BaiduFanyi: the baidu_fanyi key must be "appid:secret_key" (the APP ID and the secret key of the Baidu translate API, joined by a colon)',
      );
    }
    const salt = String(randomInt(32768, 65537));
    const field = transType === 'fieldtranslate';
    const form = new URLSearchParams({
      q,
      from,
      to,
      appid,
      salt,
      ...(field ? { domain } : {}),
      sign: md5(appid + q + salt + (field ? domain : '') + secret),
    });
    const body = shapeOf(
      TranslateSchema,
      await getJson(ctx, 'BaiduFanyi', `${ctx.baseUrl}/api/trans/vip/${transType}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      }),
      'BaiduFanyi answered without a trans_result',
    );
    const { error_code: errorCode, error_msg: errorMsg, trans_result: result } = body;
    if (errorCode !== undefined && String(errorCode) !== '52000') {
      const code = String(errorCode);
      throw new ProviderException(
        UNAUTHORIZED.has(code)
          ? ProviderErrorCode.Unauthorized
          : UNAVAILABLE.has(code)
            ? ProviderErrorCode.Unavailable
            : ProviderErrorCode.BadResponse,
        `BaiduFanyi answered ${code}: ${errorMsg ?? 'no message'}`,
      );
    }
    if (!result?.length) {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        'BaiduFanyi answered without a trans_result',
      );
    }
    // Baidu translates line by line: the lines joined again (upstream kept the first only).
    const translated = result.map((r) => r.dst).join('\n');
    return {
      outputs: { formalized_content: translated },
      answer: translated,
      summary: `BaiduFanyi: translated into ${to}`,
    };
  },
};
