import { GetObjectCommand, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { ObjectStoreConnection, ObjectStoreProvider } from '@switchyard/config';
import { objectLocationOf } from '@switchyard/contracts';
import { S3Clients, storeNotConfigured } from '@switchyard/persistence';
import { FileSourceError } from './file-source';

/** Reads a run's files from the object stores the deployment enabled (SWITCHYARD_OBJECT_STORES). */
export interface ObjectReader {
  read(provider: ObjectStoreProvider, path: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer>;
}

/**
 * One S3 client per enabled provider (AWS S3, or Alibaba OSS, Tencent COS and Google Cloud
 * Storage through their S3-compatible endpoints), built on first use. What the file itself makes
 * unreadable — no such bucket or object, access denied, over the size cap — is a FileSourceError
 * (that file fails, the others are read); anything else (the store unreachable, a 5xx) is thrown
 * as it is, so the task is tried again.
 */
export class ObjectStores implements ObjectReader {
  private readonly clients: S3Clients;

  constructor(connections: readonly ObjectStoreConnection[]) {
    this.clients = new S3Clients(connections);
  }

  async read(
    provider: ObjectStoreProvider,
    path: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const where = objectLocationOf(path);
    if ('problem' in where) {
      throw new FileSourceError(where.problem);
    }
    const client = this.client(provider);
    const name = `${provider} object ${path}`;
    let body: Readable;
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: where.bucket, Key: where.key }), {
        abortSignal: signal,
      });
      body = res.Body as Readable;
      if (res.ContentLength !== undefined && res.ContentLength > maxBytes) {
        body.destroy();
        throw new FileSourceError(
          `${name} is ${res.ContentLength} bytes, over the limit of ${maxBytes} bytes`,
        );
      }
    } catch (err) {
      throw definite(err, name) ?? err;
    }
    // Read bounded: a length the store did not send (or got wrong) cannot make it read more.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        body.destroy();
        throw new FileSourceError(`${name} is over the limit of ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  private client(provider: ObjectStoreProvider): S3Client {
    const client = this.clients.get(provider);
    if (!client) {
      throw new FileSourceError(storeNotConfigured(provider));
    }
    return client;
  }
}

/** The store's answer as a file problem, when it is about the file; undefined when it may pass. */
function definite(err: unknown, name: string): FileSourceError | undefined {
  if (err instanceof FileSourceError) {
    return err;
  }
  if (!(err instanceof S3ServiceException)) {
    return undefined;
  }
  const status = err.$metadata.httpStatusCode;
  if (err.name === 'NoSuchKey' || err.name === 'NotFound') {
    return new FileSourceError(`${name} not found`);
  }
  if (err.name === 'NoSuchBucket') {
    return new FileSourceError(`${name}: no such bucket`);
  }
  if (status === 403 || err.name === 'AccessDenied') {
    return new FileSourceError(`${name}: access denied`);
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new FileSourceError(`${name} cannot be read: ${err.name} (HTTP ${status})`);
  }
  return undefined;
}
