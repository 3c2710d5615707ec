import { z } from 'zod';
import { jsonSchemaOf, strictSchemaOf, withoutAddedNulls } from './native-schema.util';

describe(jsonSchemaOf.name, () => {
  it('describes the input side of transforms and leaves $schema out', () => {
    const schema = jsonSchemaOf(z.object({ id: z.union([z.string(), z.number()]).transform(String) }));
    expect(schema['$schema']).toBeUndefined();
    expect(schema).toMatchObject({
      type: 'object',
      properties: { id: { type: ['string', 'number'] } },
      required: ['id'],
    });
  });
});

describe(strictSchemaOf.name, () => {
  it('closes objects, requires every property and makes the optional ones nullable', () => {
    const strict = strictSchemaOf(
      jsonSchemaOf(
        z.object({
          goal: z.string().min(1),
          parts: z
            .array(z.object({ id: z.string().optional(), type: z.string().default('text') }))
            .default([]),
        }),
      ),
    );
    expect(strict).toEqual({
      type: 'object',
      properties: {
        goal: { type: 'string' },
        parts: {
          anyOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                  type: { anyOf: [{ type: 'string' }, { type: 'null' }] },
                },
                required: ['id', 'type'],
                additionalProperties: false,
              },
            },
            { type: 'null' },
          ],
        },
      },
      required: ['goal', 'parts'],
      additionalProperties: false,
    });
  });

  it.each([
    ['a free-form value', z.object({ content: z.unknown() })],
    ['a map', z.object({ counts: z.record(z.string(), z.number()) })],
    ['a root that is not an object', z.array(z.string())],
  ])('has no strict form for %s', (_what, schema) => {
    expect(strictSchemaOf(jsonSchemaOf(schema))).toBeUndefined();
  });
});

describe(withoutAddedNulls.name, () => {
  const schema = jsonSchemaOf(
    z.object({
      a: z.string().optional(),
      b: z.string().nullable(),
      items: z.array(z.object({ x: z.number().optional() })),
    }),
  );

  it('drops the nulls strict mode added, keeps the ones the schema allows', () => {
    expect(withoutAddedNulls({ a: null, b: null, items: [{ x: null }, { x: 1 }] }, schema)).toEqual({
      b: null,
      items: [{}, { x: 1 }],
    });
  });
});
