import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';

// s3rver ships no types: what is used of it.
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (opts: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
}) => S3rverInstance;

/**
 * An S3-compatible server on loopback (s3rver, files in a temporary directory) for tests of what
 * reads object stores: real HTTP, real SigV4 checks (its one key is `S3RVER`/`S3RVER`).
 */
export class S3Server {
  /** The key pair the server accepts. */
  static readonly ACCESS_KEY_ID = 'S3RVER';
  static readonly SECRET_ACCESS_KEY = 'S3RVER';

  private constructor(
    readonly url: string,
    private readonly server: S3rverInstance,
    private readonly dir: string,
    private readonly client: S3Client,
  ) {}

  static async start(): Promise<S3Server> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped CommonJS package
    const S3rver = require('s3rver') as S3rverClass;
    const dir = mkdtempSync(join(tmpdir(), 'sy-s3-'));
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
    const { port } = await server.run();
    const url = `http://127.0.0.1:${port}`;
    const client = new S3Client({
      endpoint: url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3Server.ACCESS_KEY_ID, secretAccessKey: S3Server.SECRET_ACCESS_KEY },
    });
    return new S3Server(url, server, dir, client);
  }

  /** The environment that points a provider (`aws`, `aliyun`…) of Switchyard at this server. */
  env(provider: string): Record<string, string> {
    const v = `SWITCHYARD_S3_${provider.toUpperCase()}_`;
    return {
      [`${v}ENDPOINT`]: this.url,
      [`${v}ACCESS_KEY_ID`]: S3Server.ACCESS_KEY_ID,
      [`${v}SECRET_ACCESS_KEY`]: S3Server.SECRET_ACCESS_KEY,
      [`${v}FORCE_PATH_STYLE`]: 'true',
    };
  }

  async createBucket(bucket: string): Promise<void> {
    await this.client.send(new CreateBucketCommand({ Bucket: bucket }));
  }

  async put(bucket: string, key: string, body: string | Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }

  /** The object's bytes, or null when there is none. */
  async get(bucket: string, key: string): Promise<Buffer | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') {
        return null;
      }
      throw err;
    }
  }

  /** Every key in the bucket, sorted. */
  async keys(bucket: string): Promise<string[]> {
    const res = await this.client.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (res.Contents ?? []).map((o) => o.Key as string).sort();
  }

  async stop(): Promise<void> {
    this.client.destroy();
    await this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
