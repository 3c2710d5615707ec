import { SwitchyardClient } from '@switchyard/client';

const KEY = 'switchyard.apiKey';

/** The API key lives in this tab's session only: closing the tab signs out. */
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string): void => sessionStorage.setItem(KEY, key),
  clear: (): void => sessionStorage.removeItem(KEY),
};

/** A client of the gateway that serves this page, signed in with the tenant's key. */
export const clientFor = (apiKey: string): SwitchyardClient =>
  new SwitchyardClient({ baseUrl: window.location.origin, apiKey });

export const TERMINAL = ['succeeded', 'failed', 'cancelled'];

export const fmtTime = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { hour12: false }) : '—';

export const durationMs = (from?: string | null, to?: string | null): string => {
  if (!from) {
    return '—';
  }
  const ms = (to ? new Date(to).getTime() : Date.now()) - new Date(from).getTime();
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
};
