import { Readable } from 'node:stream';
import express from 'express';

/**
 * The error express's JSON body parser raises for `body`, set up as the gateway's main.ts sets it
 * (1 MiB): `entity.too.large` for a larger body, `entity.parse.failed` for one that is not JSON.
 */
export function bodyParserError(body: string): Promise<unknown> {
  const req = Object.assign(Readable.from([Buffer.from(body)]), {
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    method: 'POST',
    url: '/',
  });
  return new Promise((resolve) =>
    express.json({ limit: '1mb' })(req as never, {} as never, (err?: unknown) => resolve(err)),
  );
}

/** A JSON body past the gateway's 1 MiB limit. */
export const OVERSIZED_JSON_BODY = JSON.stringify({ text: 'x'.repeat(1_100_000) });
