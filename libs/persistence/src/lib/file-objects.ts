import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import {
  type FileStoreLocation,
  OBJECT_STORE_PROVIDERS,
  type ObjectStoreConnection,
  type ObjectStoreProvider,
} from '@switchyard/config';

/**
 * One S3 client per configured store (AWS S3, or OSS, COS and GCS through their S3-compatible
 * endpoints), made on first use and kept: every reader and writer of objects shares this.
 */
export class S3Clients {
  private readonly clients = new Map<ObjectStoreProvider, S3Client>();

  constructor(private readonly connections: readonly ObjectStoreConnection[]) {}

  /** The store's client; undefined when this deployment does not configure it. */
  get(provider: ObjectStoreProvider): S3Client | undefined {
    let client = this.clients.get(provider);
    if (!client) {
      const c = this.connections.find((x) => x.provider === provider);
      if (!c) {
        return undefined;
      }
      client = new S3Client({
        region: c.region,
        ...(c.endpoint ? { endpoint: c.endpoint } : {}),
        forcePathStyle: c.forcePathStyle,
        credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey },
        // Its own retries stay (throttling, 5xx); what is left is the caller's to retry.
        maxAttempts: 3,
      });
      this.clients.set(provider, client);
    }
    return client;
  }
}

/** Why an object of `provider` cannot be reached here. */
export const storeNotConfigured = (provider: string): string =>
  `object store "${provider}" is not configured here (SWITCHYARD_OBJECT_STORES)`;

/** A file's object could not be read or written (the row names an object that is not there, a store not configured). */
export class FileObjectError extends Error {}

/** Where a file's object is: `<provider>:<bucket>/<key>` (the whole location, so a later change of SWITCHYARD_FILE_STORE still reads it). */
export function parseObjectKey(objectKey: string): {
  provider: ObjectStoreProvider;
  bucket: string;
  key: string;
} {
  const m = /^([a-z]+):([^/]+)\/(.+)$/.exec(objectKey);
  if (!m || !(OBJECT_STORE_PROVIDERS as readonly string[]).includes(m[1])) {
    throw new FileObjectError(`"${objectKey}" is not a file object's location`);
  }
  return { provider: m[1] as ObjectStoreProvider, bucket: m[2], key: m[3] };
}

/**
 * The bytes of the tenant's files in object stores: written where SWITCHYARD_FILE_STORE says,
 * read and deleted wherever a file's row says it is (any store with a connection here).
 */
export class FileObjects {
  private readonly clients: S3Clients;

  constructor(
    /** Where new files go (null: they stay in Postgres). */
    readonly writeTo: FileStoreLocation | null,
    connections: readonly ObjectStoreConnection[],
  ) {
    this.clients = new S3Clients(connections);
  }

  /** Writes the bytes under `name` (unique per file) and answers the object's location. */
  async put(name: string, content: Buffer, mimeType: string): Promise<string> {
    if (!this.writeTo) {
      throw new FileObjectError('files are kept in Postgres here (SWITCHYARD_FILE_STORE=postgres)');
    }
    const { provider, bucket, prefix } = this.writeTo;
    const key = `${prefix}${name}`;
    await this.client(provider).send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: content, ContentType: mimeType }),
    );
    return `${provider}:${bucket}/${key}`;
  }

  async get(objectKey: string): Promise<Buffer> {
    const { provider, bucket, key } = parseObjectKey(objectKey);
    let body: Readable;
    try {
      body = (await this.client(provider).send(new GetObjectCommand({ Bucket: bucket, Key: key })))
        .Body as Readable;
    } catch (err) {
      if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound')) {
        throw new FileObjectError(`the file's object ${objectKey} is missing from its store`);
      }
      throw err;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  /**
   * Deletes these objects (one already gone counts as deleted); answers the ones that are gone
   * now, and the ones that could not be deleted (left for the next sweep) with why.
   */
  async delete(
    objectKeys: readonly string[],
  ): Promise<{ deleted: string[]; failed: { objectKey: string; error: string }[] }> {
    const deleted: string[] = [];
    const failed: { objectKey: string; error: string }[] = [];
    for (const objectKey of objectKeys) {
      const { provider, bucket, key } = parseObjectKey(objectKey);
      try {
        await this.client(provider).send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
        deleted.push(objectKey);
      } catch (err) {
        if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.name === 'NotFound')) {
          deleted.push(objectKey);
        } else {
          failed.push({ objectKey, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
    return { deleted, failed };
  }

  private client(provider: ObjectStoreProvider): S3Client {
    const client = this.clients.get(provider);
    if (!client) {
      throw new FileObjectError(storeNotConfigured(provider));
    }
    return client;
  }
}
