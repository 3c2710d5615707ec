import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolCall, type WebToolSpec, emptyResult, getJson, shapeOf } from './web-tool';

const TYPES = ['weather', 'indices', 'airquality'];
const USER_TYPES = ['free', 'paid'];
const TIME_PERIODS = ['now', '3d', '7d', '10d', '15d', '30d'];
const LANGS =
  'zh zh-hant en de es fr it ja ko ru hi th ar pt bn ms nl el la sv id pl tr cs et vi fil fi he is nb'.split(
    ' ',
  );

// Upstream's words for QWeather's status codes.
const ERRORS: Record<string, string> = {
  '204':
    'The request was successful, but the region you are querying does not have the data you need at this time.',
  '400': 'Request error, may contain incorrect request parameters or missing mandatory request parameters.',
  '401':
    "Authentication fails, possibly using the wrong KEY, wrong digital signature, wrong type of KEY (e.g. using the SDK's KEY to access the Web API).",
  '402':
    'Exceeded the number of accesses or the balance is not enough to support continued access to the service, you can recharge, upgrade the accesses or wait for the accesses to be reset.',
  '403':
    'No access, may be the binding PackageName, BundleID, domain IP address is inconsistent, or the data that requires additional payment.',
  '404': 'The queried data or region does not exist.',
  '429': 'Exceeded the limited QPM (number of accesses per minute), please refer to the QPM description',
  '500': 'No response or timeout, interface service abnormality please contact us',
};

/**
 * The default base URL stands for upstream's public hosts: the city lookup on geoapi, the data
 * on api (paid) or devapi (free). Any other base URL (an account's own API Host, a proxy, a
 * test) serves both, as QWeather's API Hosts do: `/geo/v2/city/lookup` and `/v7/...`.
 */
const PUBLIC_HOSTS = 'https://api.qweather.com';

// Every answer carries QWeather's status `code` ("200" when it went well).
const CodeSchema = z.object({ code: z.string() }).passthrough();
const LookupSchema = z
  .object({ location: z.array(z.object({ id: z.string() }).passthrough()).min(1) })
  .passthrough();
const NowSchema = z.object({ now: z.record(z.string(), z.unknown()) }).passthrough();
const DailySchema = z.object({ daily: z.array(z.record(z.string(), z.unknown())) }).passthrough();
const IndicesSchema = z
  .object({
    daily: z
      .array(
        z
          .object({ date: z.string(), name: z.string(), category: z.string(), text: z.string().optional() })
          .passthrough(),
      )
      .min(1),
  })
  .passthrough();

const PY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One character of a Python string literal quoted with `q`. */
function pyChar(c: string, q: string): string {
  if (c === q) {
    return `\\${c}`;
  }
  const code = c.charCodeAt(0);
  return PY_ESCAPES[c] ?? (code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : c);
}

/** Python's `str()` of a JSON value, as upstream renders QWeather's objects. */
function pyRepr(v: unknown): string {
  if (v === null || v === undefined) {
    return 'None';
  }
  if (typeof v === 'boolean') {
    return v ? 'True' : 'False';
  }
  if (typeof v === 'number') {
    return String(v);
  }
  if (typeof v === 'string') {
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    return q + [...v].map((c) => pyChar(c, q)).join('') + q;
  }
  if (Array.isArray(v)) {
    return `[${v.map(pyRepr).join(', ')}]`;
  }
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

function oneOf(ctx: WebToolCall, name: string, allowed: string[]): string {
  const v = String(ctx.params[name]);
  if (!allowed.includes(v)) {
    throw new ProviderException(
      ProviderErrorCode.InvalidInput,
      `QWeather: ${name} "${v}" is not one of ${allowed.join(', ')}`,
    );
  }
  return v;
}

/** One QWeather call (the key as `key`, as upstream); a status code other than 200 is an error. */
async function qweather<S extends z.ZodType>(ctx: WebToolCall, url: string, schema: S): Promise<z.output<S>> {
  const raw = await getJson(ctx, 'QWeather', url);
  const { code } = shapeOf(CodeSchema, raw, 'QWeather answered without a code');
  if (code !== '200') {
    throw new ProviderException(
      code === '401' || code === '403'
        ? ProviderErrorCode.Unauthorized
        : code === '429' || code === '500'
          ? ProviderErrorCode.Unavailable
          : ProviderErrorCode.BadResponse,
      `QWeather answered ${code}: ${ERRORS[code] ?? `QWeather API returned code ${code}.`}`,
    );
  }
  return shapeOf(schema, raw, `QWeather answered ${code} without the data`);
}

function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  url.search = new URLSearchParams(params).toString();
  return url.toString();
}

/**
 * RAGFlow agent/tools/qweather.py: the location's current weather or forecast, life indices or
 * air quality, as the text `formalized_content` (QWeather's objects as Python prints them).
 */
export const QWEATHER: WebToolSpec = {
  component: 'QWeather',
  functionName: 'qweather',
  envName: 'QWEATHER',
  defaultBaseUrl: PUBLIC_HOSTS,
  key: { provider: 'qweather', required: true },
  description:
    'QWeather (和风天气) looks up the current weather, a multi-day forecast, life indices, or air quality for a location using the QWeather API.',
  parameters: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: "The location to look up weather for, e.g. a city name like 'Beijing' or '北京'.",
      },
    },
    required: ['query'],
  },
  inputs: { query: '{sys.query}' },
  defaults: { lang: 'zh', type: 'weather', user_type: 'free', time_period: 'now' },
  async call(ctx, args) {
    const location = String(args['query'] ?? '');
    if (!location) {
      return emptyResult('QWeather');
    }
    const type = oneOf(ctx, 'type', TYPES);
    const userType = oneOf(ctx, 'user_type', USER_TYPES);
    const lang = oneOf(ctx, 'lang', LANGS);
    const timePeriod = oneOf(ctx, 'time_period', TIME_PERIODS);
    if (!ctx.apiKey) {
      throw new ProviderException(ProviderErrorCode.NoKey, 'QWeather: the tenant has no qweather key');
    }
    const key = ctx.apiKey;
    const publicHosts = ctx.baseUrl === PUBLIC_HOSTS;
    const geoUrl = publicHosts ? 'https://geoapi.qweather.com/v2' : `${ctx.baseUrl}/geo/v2`;
    const dataUrl = publicHosts
      ? userType === 'paid'
        ? 'https://api.qweather.com/v7'
        : 'https://devapi.qweather.com/v7'
      : `${ctx.baseUrl}/v7`;

    const lookup = await qweather(ctx, withQuery(`${geoUrl}/city/lookup`, { location, key }), LookupSchema);
    const id = lookup.location[0]!.id;

    let content: string;
    if (type === 'weather') {
      const url = withQuery(`${dataUrl}/weather/${timePeriod}`, { location: id, key, lang });
      content =
        timePeriod === 'now'
          ? pyRepr((await qweather(ctx, url, NowSchema)).now)
          : (await qweather(ctx, url, DailySchema)).daily.map(pyRepr).join('\n');
    } else if (type === 'indices') {
      const url = withQuery(`${dataUrl}/indices/1d`, { type: '0', location: id, key, lang });
      const daily = (await qweather(ctx, url, IndicesSchema)).daily;
      content = [daily[0]!.date, ...daily.map((i) => `${i.name}: ${i.category}, ${i.text ?? ''}`)].join('\n');
    } else {
      const url = withQuery(`${dataUrl}/air/now`, { location: id, key, lang });
      content = pyRepr((await qweather(ctx, url, NowSchema)).now);
    }
    return {
      outputs: { formalized_content: content },
      answer: content,
      summary: `QWeather: ${type} for ${location}`,
    };
  },
};
