import { z } from 'zod';
import { dnsEnvSchema, hostListSchema } from '@switchyard/net-guard';

/** The external providers whose keys a tenant can hold (`provider_keys.provider`). */
export const PROVIDERS = [
  'tavily',
  'yahoo_finance',
  // RAGFlow's keyed web tools (#31): Google and GoogleScholar through SerpApi, QWeather, DeepL,
  // BaiduFanyi (`appid:secret`), TuShare, Jin10, GitHub (an optional token), Email's SMTP password.
  'serpapi',
  'qweather',
  'deepl',
  'baidu_fanyi',
  'tushare',
  'jin10',
  'github',
  'smtp',
] as const;
export type Provider = (typeof PROVIDERS)[number];

const baseUrl = z
  .string()
  .url('must be an absolute http(s) URL')
  .refine((v) => /^https?:\/\//.test(v), 'must be an http:// or https:// URL')
  .refine((v) => {
    const u = new URL(v);
    return !u.username && !u.password && !u.search && !u.hash;
  }, 'must not carry credentials, a query or a fragment')
  .transform((v) => v.replace(/\/+$/, ''));

/**
 * Where the provider clients send their requests. The base URLs point at the real services by
 * default; an operator (or a test) points them elsewhere. Requests go through net-guard: a host
 * that is not public is refused unless listed in SWITCHYARD_PROVIDER_ALLOW_HOSTS.
 */
export const providerEnvSchema = z
  .object({
    SWITCHYARD_TAVILY_BASE_URL: baseUrl.default('https://api.tavily.com'),
    SWITCHYARD_YAHOO_FINANCE_BASE_URL: baseUrl.default('https://query2.finance.yahoo.com'),
    SWITCHYARD_PROVIDER_ALLOW_HOSTS: hostListSchema,
  })
  .extend(dnsEnvSchema.shape);
export type ProviderEnv = z.infer<typeof providerEnvSchema>;

export const PROVIDER_ALLOW_VARIABLE = 'SWITCHYARD_PROVIDER_ALLOW_HOSTS';
