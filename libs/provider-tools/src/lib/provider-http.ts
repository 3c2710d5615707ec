import type { z } from 'zod';
import { type GuardedFetch, guardedFetch, toolLookup, vettedAddress } from '@switchyard/net-guard';
import { PROVIDER_ALLOW_VARIABLE, type ProviderEnv } from './provider-tools.config';
import { ProviderErrorCode, ProviderException } from './provider.exception';

/** The guarded fetch all provider clients share (net-guard, the provider allow-list). */
export function providerFetch(env: ProviderEnv): GuardedFetch {
  return guardedFetch({
    allowHosts: env.SWITCHYARD_PROVIDER_ALLOW_HOSTS,
    allowVariable: PROVIDER_ALLOW_VARIABLE,
    lookup: toolLookup(env),
  });
}

/** The address a non-HTTP provider client connects to for a host, under the same rule as providerFetch. */
export function providerHostVetting(env: ProviderEnv): (host: string) => Promise<string> {
  return (host) =>
    vettedAddress(host, {
      allowHosts: env.SWITCHYARD_PROVIDER_ALLOW_HOSTS,
      allowVariable: PROVIDER_ALLOW_VARIABLE,
      lookup: toolLookup(env),
    });
}

/** Sends one request and reads a JSON answer, mapping failures to ProviderException. */
export async function requestJson(
  fetcher: GuardedFetch,
  provider: string,
  url: string,
  init: RequestInit,
): Promise<unknown> {
  let res: Response;
  try {
    // Redirects are not followed: a provider answering with one is misconfigured, and following
    // it would take the key elsewhere.
    res = await fetcher(url, { ...init, redirect: 'manual' });
  } catch (err) {
    if ((err as Error).name === 'AbortError' || init.signal?.aborted) {
      throw err;
    }
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw new ProviderException(
      ProviderErrorCode.Network,
      `${provider}: ${(err as Error).message}${cause ? ` (${cause})` : ''}`,
    );
  }
  const text = await res.text();
  if (!res.ok) {
    const detail = text.slice(0, 300);
    const code =
      res.status === 401 || res.status === 403
        ? ProviderErrorCode.Unauthorized
        : res.status === 429 || res.status >= 500
          ? ProviderErrorCode.Unavailable
          : ProviderErrorCode.BadResponse;
    throw new ProviderException(code, `${provider} answered ${res.status}${detail ? `: ${detail}` : ''}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderException(
      ProviderErrorCode.BadResponse,
      `${provider} answered with a body that is not JSON`,
    );
  }
}

/** A provider call's params checked against its schema; a bad one names the field. */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown, provider: string): z.output<S> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    throw new ProviderException(
      ProviderErrorCode.InvalidInput,
      `${provider}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
