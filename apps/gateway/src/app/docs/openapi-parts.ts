import { z } from 'zod';
import { ApiErrorCode } from '../http/api.exception';

// The pieces every part of the OpenAPI document is made of: JSON Schemas from the zod schemas the
// gateway validates with, so the document and the validation cannot drift apart.

export const json = (s: z.ZodType) =>
  z.toJSONSchema(s, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' });
export const out = (s: z.ZodType) =>
  z.toJSONSchema(s, { target: 'openapi-3.0', io: 'output', unrepresentable: 'any' });

export const ErrorSchema = z.object({
  error: z.object({
    code: z.enum(Object.values(ApiErrorCode) as [string, ...string[]]),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});

export const err = (description: string) => ({
  description,
  content: { 'application/json': { schema: out(ErrorSchema) } },
});

export const ok = (description: string, schema?: z.ZodType) => ({
  description,
  ...(schema ? { content: { 'application/json': { schema: out(schema) } } } : {}),
});

export const body = (schema: z.ZodType) => ({
  required: true,
  content: { 'application/json': { schema: json(schema) } },
});

export const id = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
});

export const query = (name: string, schema: Record<string, unknown>, description?: string) => ({
  name,
  in: 'query',
  required: false,
  schema,
  ...(description ? { description } : {}),
});

export const common = {
  401: err('missing, unknown or revoked API key'),
  404: err('no such resource for this tenant'),
  429: err('rate limited (see Retry-After)'),
};
