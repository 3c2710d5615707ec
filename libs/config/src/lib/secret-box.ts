import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * `SWITCHYARD_SECRET_KEY`: the key that encrypts secrets at rest (vendor keys, data-source DSNs,
 * MCP server credentials). 32 bytes as 64 hex characters or base64; anything else is refused at
 * start-up with a message naming the variable.
 */
export const DEV_SECRET_KEY = '0'.repeat(64);

export const secretEnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    SWITCHYARD_SECRET_KEY: z
      .string()
      .default(DEV_SECRET_KEY)
      .refine((v) => decodeKey(v) !== undefined, {
        message: 'must be 32 bytes, written as 64 hex characters or as base64',
      }),
  })
  .refine((e) => e.NODE_ENV !== 'production' || e.SWITCHYARD_SECRET_KEY !== DEV_SECRET_KEY, {
    message: 'must be set to a real key when NODE_ENV=production (the default is for development only)',
    path: ['SWITCHYARD_SECRET_KEY'],
  });
export type SecretEnv = z.infer<typeof secretEnvSchema>;

function decodeKey(v: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(v)) {
    return Buffer.from(v, 'hex');
  }
  const b = Buffer.from(v, 'base64');
  return b.length === 32 ? b : undefined;
}

const VERSION = 'v1';

/**
 * AES-256-GCM for secrets kept in Postgres. A sealed value is `v1:<iv>:<tag>:<ciphertext>`
 * (base64 parts); opening checks the tag, so a wrong key or a tampered value fails loudly.
 * `fingerprint` names a secret in logs and APIs without revealing it.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    const key = decodeKey(secretKey);
    if (!key) {
      throw new Error('SWITCHYARD_SECRET_KEY must be 32 bytes, written as 64 hex characters or as base64');
    }
    this.key = key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      data.toString('base64'),
    ].join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || data === undefined) {
      throw new Error('not a sealed secret (expected v1:<iv>:<tag>:<data>)');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('secret could not be opened: wrong SWITCHYARD_SECRET_KEY or tampered value');
    }
  }

  /** A short, stable, non-reversible name for a secret (first 12 hex chars of its SHA-256). */
  static fingerprint(plain: string): string {
    return createHash('sha256').update(plain).digest('hex').slice(0, 12);
  }
}
