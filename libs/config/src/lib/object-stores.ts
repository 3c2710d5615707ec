import { z } from 'zod';
import { loadConfig } from './load-config';

/**
 * The object stores a run's files may name (`mapping.provider` other than `local`). Each is
 * reached through the S3 API: Alibaba OSS, Tencent COS and Google Cloud Storage all answer it
 * (with their own endpoint and HMAC keys).
 */
export const OBJECT_STORE_PROVIDERS = ['aws', 'aliyun', 'tencent', 'gcs'] as const;
export type ObjectStoreProvider = (typeof OBJECT_STORE_PROVIDERS)[number];

/**
 * `SWITCHYARD_OBJECT_STORES`: which of them this deployment reads from, comma-separated (empty:
 * local files only). The gateway refuses a run naming any other; the tool-executor reads them.
 */
export const objectStoresEnvSchema = z.object({
  SWITCHYARD_OBJECT_STORES: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const list = [
        ...new Set(
          v
            .split(',')
            .map((s) => s.trim().toLowerCase())
            .filter(Boolean),
        ),
      ];
      const unknown = list.filter((p) => !(OBJECT_STORE_PROVIDERS as readonly string[]).includes(p));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown ${unknown.map((p) => `"${p}"`).join(', ')}: each must be one of ${OBJECT_STORE_PROVIDERS.join(', ')}`,
        });
        return z.NEVER;
      }
      return list as ObjectStoreProvider[];
    }),
});

/** How to reach one provider's store. */
export interface ObjectStoreConnection {
  provider: ObjectStoreProvider;
  /** Undefined: AWS's own endpoint for the region. */
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key` (MinIO and most test servers). */
  forcePathStyle: boolean;
}

/** The variable prefix of a provider's settings: `SWITCHYARD_S3_AWS_`, `SWITCHYARD_S3_ALIYUN_`… */
export const objectStoreEnvPrefix = (p: ObjectStoreProvider) => `SWITCHYARD_S3_${p.toUpperCase()}_`;

const httpUrl = z.string().refine(
  (v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  },
  { message: 'must be an http(s) URL' },
);

/**
 * Every enabled store's connection, from `SWITCHYARD_S3_<PROVIDER>_{ENDPOINT, REGION,
 * ACCESS_KEY_ID, SECRET_ACCESS_KEY, FORCE_PATH_STYLE}`. The endpoint may be left out for AWS only;
 * the keys are required. A missing or bad variable throws ConfigException naming it.
 */
export function objectStoreConnections(env: NodeJS.ProcessEnv = process.env): ObjectStoreConnection[] {
  const enabled = loadConfig(objectStoresEnvSchema, env).SWITCHYARD_OBJECT_STORES;
  const shape: Record<string, z.ZodType> = {};
  for (const p of enabled) {
    const v = objectStoreEnvPrefix(p);
    shape[`${v}ENDPOINT`] = p === 'aws' ? httpUrl.optional() : httpUrl;
    shape[`${v}REGION`] = z
      .string()
      .min(1)
      .default(p === 'gcs' ? 'auto' : 'us-east-1');
    shape[`${v}ACCESS_KEY_ID`] = z.string().min(1);
    shape[`${v}SECRET_ACCESS_KEY`] = z.string().min(1);
    shape[`${v}FORCE_PATH_STYLE`] = z.enum(['true', 'false']).default('false');
  }
  const cfg = loadConfig(z.object(shape), env) as Record<string, string | undefined>;
  return enabled.map((p) => {
    const v = objectStoreEnvPrefix(p);
    return {
      provider: p,
      ...(cfg[`${v}ENDPOINT`] ? { endpoint: cfg[`${v}ENDPOINT`] } : {}),
      region: cfg[`${v}REGION`] as string,
      accessKeyId: cfg[`${v}ACCESS_KEY_ID`] as string,
      secretAccessKey: cfg[`${v}SECRET_ACCESS_KEY`] as string,
      forcePathStyle: cfg[`${v}FORCE_PATH_STYLE`] === 'true',
    };
  });
}

/** Where the tenant's files (uploads and the files runs make) keep their bytes. */
export interface FileStoreLocation {
  provider: ObjectStoreProvider;
  bucket: string;
  /** Put before every key (`''`, or ending in `/`). */
  prefix: string;
}

const FILE_STORE = /^([a-z]+):([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;

/**
 * `SWITCHYARD_FILE_STORE`: `postgres` (the default: bytes in the `files` table, for development
 * and small deployments) or `<provider>:<bucket>[/<prefix>]` — an object store this deployment
 * enabled in SWITCHYARD_OBJECT_STORES (its connection from `SWITCHYARD_S3_<PROVIDER>_*`).
 * Null for postgres; a bad value throws ConfigException naming the variable.
 */
export function fileStoreLocation(env: NodeJS.ProcessEnv = process.env): FileStoreLocation | null {
  const schema = z.object({
    SWITCHYARD_FILE_STORE: z
      .string()
      .default('postgres')
      .transform((v, ctx) => {
        const value = v.trim();
        if (value === '' || value === 'postgres') {
          return null;
        }
        const m = FILE_STORE.exec(value);
        if (!m) {
          ctx.addIssue({ code: 'custom', message: 'must be "postgres" or <provider>:<bucket>[/<prefix>]' });
          return z.NEVER;
        }
        const provider = m[1] as ObjectStoreProvider;
        const enabled = loadConfig(objectStoresEnvSchema, env).SWITCHYARD_OBJECT_STORES;
        if (!enabled.includes(provider)) {
          ctx.addIssue({
            code: 'custom',
            message: `"${m[1]}" is not an object store this deployment enabled (SWITCHYARD_OBJECT_STORES: ${enabled.join(', ') || 'none'})`,
          });
          return z.NEVER;
        }
        const prefix = (m[3] ?? '').replace(/^\/+|\/+$/g, '');
        return { provider, bucket: m[2], prefix: prefix ? `${prefix}/` : '' };
      }),
  });
  return loadConfig(schema, env).SWITCHYARD_FILE_STORE;
}
