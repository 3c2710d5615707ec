import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import {
  type WebToolCall,
  type WebToolSpec,
  chunksResult,
  emptyResult,
  getJson,
  positiveInt,
  shapeOf,
} from './web-tool';

// Google's countries (`gl`) and interface languages (`hl`) as upstream accepts them.
const COUNTRIES = new Set(
  (
    'af al dz as ad ao ai aq ag ar am aw au at az bs bh bd bb by be bz bj bm bt bo ba bw bv br io ' +
    'bn bg bf bi kh cm ca cv ky cf td cl cn cx cc co km cg cd ck cr ci hr cu cy cz dk dj dm do ec ' +
    'eg sv gq er ee et fk fo fj fi fr gf pf tf ga gm ge de gh gi gr gl gd gp gu gt gn gw gy ht hm ' +
    'va hn hk hu is in id ir iq ie il it jm jp jo kz ke ki kp kr kw kg la lv lb ls lr ly li lt lu ' +
    'mo mk mg mw my mv ml mt mh mq mr mu yt mx fm md mc mn ms ma mz mm na nr np nl an nc nz ni ne ' +
    'ng nu nf mp no om pk pw ps pa pg py pe ph pn pl pt pr qa re ro ru rw sh kn lc pm vc ws sm st ' +
    'sa sn rs sc sl sg sk si sb so za gs es lk sd sr sj sz se ch sy tw tj tz th tl tg tk to tt tn ' +
    'tr tm tc tv ug ua ae uk gb us um uy uz vu ve vn vg vi wf eh ye zm zw'
  ).split(' '),
);
const LANGUAGES = new Set(
  (
    'af ak sq ws am ar hy az eu be bem bn bh xx-bork bs br bg bt km ca chr ny zh-cn zh-tw co hr ' +
    'cs da nl xx-elmer en eo et ee fo tl fi fr fy gaa gl ka de el kl gn gu xx-hacker ht ha haw iw ' +
    'hi hu is ig id ia ga it ja jw kn kk rw rn xx-klingon kg ko kri ku ckb ky lo la lv ln lt loz ' +
    'lg ach mk mg ms ml mt mv mi mr mfe mo mn sr-me my ne pcm nso no nn oc or om ps fa xx-pirate ' +
    'pl pt pt-br pt-pt pa qu ro rm nyn ru gd sr sh st tn crs sn sd si sk sl so es es-419 su sw sv ' +
    'tg ta tt te th ti to lua tum tr tk tw ug uk ur uz vu vi cy wo xh yi yo zu'
  ).split(' '),
);

// SerpApi's answer: the engine's results under `organic_results`, or an `error` in their place
// (an empty result set, too).
const SerpSchema = z
  .object({
    error: z.string().optional(),
    search_metadata: z.object({ status: z.string().optional() }).passthrough().optional(),
    organic_results: z.array(z.object({}).passthrough()).optional(),
  })
  .passthrough();

export type SerpAnswer = z.infer<typeof SerpSchema>;

/** One SerpApi search (`/search.json`, the key as `api_key`), its answer checked. */
export async function serpApiSearch(
  ctx: WebToolCall,
  tool: string,
  params: Record<string, string>,
): Promise<SerpAnswer> {
  const url = new URL(`${ctx.baseUrl}/search.json`);
  url.search = new URLSearchParams({ ...params, api_key: ctx.apiKey ?? '' }).toString();
  const body = shapeOf(
    SerpSchema,
    await getJson(ctx, tool, url.toString()),
    `${tool} answered without organic_results`,
  );
  return body;
}

const OrganicSchema = z
  .object({
    title: z.string().optional(),
    link: z.string().optional(),
    snippet: z.string().optional(),
    about_this_result: z
      .object({ source: z.object({ description: z.string().optional() }).passthrough().optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** An argument the model may leave out: the canvas's param then. */
const argOrParam = (args: Record<string, unknown>, params: Record<string, unknown>, name: string) =>
  args[name] === undefined || args[name] === null || args[name] === '' ? params[name] : args[name];

/**
 * RAGFlow agent/tools/google.py: Google's organic results through SerpApi, in the params' country
 * and language. The SerpApi key is the tenant's `serpapi` key. Upstream offers the model `start`
 * and `num` but never sends them; here they page and limit the results as their descriptions say.
 */
export const GOOGLE: WebToolSpec = {
  component: 'Google',
  functionName: 'google_search',
  envName: 'GOOGLE',
  defaultBaseUrl: 'https://serpapi.com',
  key: { provider: 'serpapi', required: true },
  description:
    "Search the world's information, including webpages, images, videos and more. Google has many special features to help you find exactly what you're looking ...",
  parameters: {
    type: 'object',
    properties: {
      q: {
        type: 'string',
        description:
          'The search keywords to execute with Google. The keywords should be the most important words/terms(includes synonyms) from the original request.',
      },
      start: {
        type: 'integer',
        description:
          "Parameter defines the result offset. It skips the given number of results. It's used for pagination. (e.g., 0 (default) is the first page of results, 10 is the 2nd page of results, 20 is the 3rd page of results, etc.). Google Local Results only accepts multiples of 20(e.g. 20 for the second page results, 40 for the third page results, etc.) as the `start` value.",
      },
      num: {
        type: 'integer',
        description:
          'Parameter defines the maximum number of results to return. (e.g., 10 (default) returns 10 results, 40 returns 40 results, and 100 returns 100 results). The use of num may introduce latency, and/or prevent the inclusion of specialized result types. It is better to omit this parameter unless it is strictly necessary to increase the number of results per page. Results are not guaranteed to have the number of results specified in num.',
      },
    },
    required: ['q'],
  },
  inputs: { q: '{sys.query}', start: 0, num: 6 },
  defaults: { start: 0, num: 6, country: 'cn', language: 'en' },
  async call(ctx, args) {
    const q = String(args['q'] ?? '');
    if (!q) {
      return emptyResult('Google');
    }
    const country = String(ctx.params['country']);
    if (!COUNTRIES.has(country)) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `Google: country "${country}" is not a Google country code`,
      );
    }
    const language = String(ctx.params['language']);
    if (!LANGUAGES.has(language)) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        `Google: language "${language}" is not a Google language code`,
      );
    }
    const start = Number(argOrParam(args, ctx.params, 'start'));
    if (!Number.isInteger(start) || start < 0) {
      throw new ProviderException(
        ProviderErrorCode.InvalidInput,
        'Google: start must be a non-negative integer',
      );
    }
    const num = positiveInt({ num: argOrParam(args, ctx.params, 'num') }, 'num', 'Google');
    const answer = await serpApiSearch(ctx, 'Google', {
      engine: 'google',
      q,
      google_domain: 'google.com',
      gl: country,
      hl: language,
      start: String(start),
      num: String(num),
    });
    // As upstream, no organic results is an error: SerpApi's own words for it ("Google hasn't
    // returned any results for this query.", an invalid key, a spent quota).
    if (!answer.organic_results) {
      throw new ProviderException(
        ProviderErrorCode.BadResponse,
        `Google: ${answer.error ?? 'SerpApi returned no organic_results.'}`,
      );
    }
    const results = answer.organic_results.slice(0, num);
    return chunksResult(
      'Google',
      results.map((raw) => {
        const r = OrganicSchema.safeParse(raw);
        const d: z.infer<typeof OrganicSchema> = r.success ? r.data : {};
        return {
          title: d.title ?? '',
          url: d.link ?? '',
          content: d.about_this_result?.source?.description ?? d.snippet ?? '',
        };
      }),
      { json: results },
    );
  },
};
