import { z } from 'zod';

// The JSON Schema a structured call sends to the vendor, derived from the caller's zod schema (the
// one source of truth: the reply is still validated with zod afterwards).

type Json = Record<string, unknown>;

// Both conversions are pure and cost more than a model call's own request building (a node's
// schema is converted on every call, and again to check the reply), so each schema is converted
// once. Keyed by the schema object: a schema built per call is simply converted per call. The
// results are shared: callers must not mutate them.
const jsonSchemas = new WeakMap<z.ZodType, Json>();
const strictSchemas = new WeakMap<Json, { strict: Json | undefined }>();

/** The zod schema as JSON Schema, as the model should write it (transforms: their input side). */
export function jsonSchemaOf(schema: z.ZodType): Json {
  let json = jsonSchemas.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    delete json['$schema'];
    jsonSchemas.set(schema, json);
  }
  return json;
}

// Keywords OpenAI's strict mode accepts; the others (minLength, default, propertyNames…) are left
// out of the strict form only: zod still checks them on the reply.
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  '$ref',
  '$defs',
]);
// Keywords strict mode cannot express: a schema using them is sent with strict: false.
const NOT_STRICT = ['allOf', 'oneOf', 'not', 'if', 'then', 'else', 'patternProperties', 'prefixItems'];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema in the form OpenAI's strict structured outputs require (every object closed with
 * `additionalProperties: false`, every property required; an optional property becomes required
 * and nullable, and `withoutAddedNulls` removes those nulls again before validation), or undefined
 * when the schema cannot be made strict (a free-form value `{}`, a map, allOf/oneOf…): such a
 * schema is sent with `strict: false`.
 */
export function strictSchemaOf(schema: Json): Json | undefined {
  let known = strictSchemas.get(schema);
  if (!known) {
    // OpenAI's json_schema and every vendor's tool input need an object at the root.
    known = { strict: schema['type'] === 'object' ? strictNode(schema) : undefined };
    strictSchemas.set(schema, known);
  }
  return known.strict;
}

function strictNode(node: unknown): Json | undefined {
  if (!isObject(node) || NOT_STRICT.some((k) => k in node)) {
    return undefined;
  }
  const describes = ['type', 'anyOf', 'enum', 'const', '$ref'].some((k) => k in node);
  if (!describes) {
    // `{}`: any value, which strict mode cannot say.
    return undefined;
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (STRICT_KEYWORDS.has(key)) {
      out[key] = value;
    }
  }
  const types = Array.isArray(node['type']) ? (node['type'] as unknown[]) : [node['type']];
  if (types.includes('object')) {
    const props = isObject(node['properties']) ? node['properties'] : {};
    const extra = node['additionalProperties'];
    if (extra !== undefined && extra !== false) {
      return undefined;
    }
    if (Object.keys(props).length === 0 && extra === undefined) {
      // An open object (a map): nothing strict can say about its keys.
      return undefined;
    }
    const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
    const strictProps: Json = {};
    for (const [name, prop] of Object.entries(props)) {
      const strict = strictNode(prop);
      if (!strict) {
        return undefined;
      }
      strictProps[name] = required.has(name) || allowsNull(strict) ? strict : nullable(strict);
    }
    out['properties'] = strictProps;
    out['required'] = Object.keys(props);
    out['additionalProperties'] = false;
  }
  if ('items' in node) {
    const items = strictNode(node['items']);
    if (!items) {
      return undefined;
    }
    out['items'] = items;
  }
  for (const key of ['anyOf'] as const) {
    if (key in node) {
      const branches = (node[key] as unknown[]).map(strictNode);
      if (branches.some((b) => !b)) {
        return undefined;
      }
      out[key] = branches;
    }
  }
  if (isObject(node['$defs'])) {
    const defs: Json = {};
    for (const [name, def] of Object.entries(node['$defs'])) {
      const strict = strictNode(def);
      if (!strict) {
        return undefined;
      }
      defs[name] = strict;
    }
    out['$defs'] = defs;
  }
  return out;
}

function nullable(node: Json): Json {
  return { anyOf: [node, { type: 'null' }] };
}

function allowsNull(node: unknown): boolean {
  if (!isObject(node) || Object.keys(node).length === 0) {
    return true;
  }
  const type = node['type'];
  return (
    type === 'null' ||
    (Array.isArray(type) && type.includes('null')) ||
    node['const'] === null ||
    (Array.isArray(node['enum']) && node['enum'].includes(null)) ||
    (Array.isArray(node['anyOf']) && node['anyOf'].some(allowsNull))
  );
}

/**
 * The reply without the nulls the strict form added: a property the original schema did not
 * require and that cannot be null is dropped when null (the model had to write it).
 */
export function withoutAddedNulls(value: unknown, schema: unknown): unknown {
  if (!isObject(schema)) {
    return value;
  }
  if (Array.isArray(value)) {
    return 'items' in schema ? value.map((v) => withoutAddedNulls(v, schema['items'])) : value;
  }
  if (!isObject(value)) {
    return value;
  }
  if (Array.isArray(schema['anyOf'])) {
    const objects = (schema['anyOf'] as unknown[]).filter((b) => isObject(b) && b['type'] === 'object');
    return objects.length === 1 ? withoutAddedNulls(value, objects[0]) : value;
  }
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null && key in props && !required.has(key) && !allowsNull(props[key])) {
      continue;
    }
    out[key] = key in props ? withoutAddedNulls(v, props[key]) : v;
  }
  return out;
}
