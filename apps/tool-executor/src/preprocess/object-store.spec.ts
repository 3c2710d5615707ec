import { createServer } from 'node:net';
import { S3Server } from '@switchyard/testing';
import { objectLocationOf } from '@switchyard/contracts';
import { FileSourceError } from './file-source';
import { ObjectStores } from './object-store';

// Against a real S3-compatible server on loopback (s3rver): real HTTP and SigV4.
jest.setTimeout(30_000);

let s3: S3Server;
let stores: ObjectStores;

beforeAll(async () => {
  s3 = await S3Server.start();
  await s3.createBucket('run-files');
  await s3.put('run-files', 'reports/q3.csv', 'region,amount\nNorth,1\n');
  await s3.put('run-files', 'big.bin', Buffer.alloc(2_000, 7));
  stores = new ObjectStores([
    {
      provider: 'aws',
      endpoint: s3.url,
      region: 'us-east-1',
      accessKeyId: S3Server.ACCESS_KEY_ID,
      secretAccessKey: S3Server.SECRET_ACCESS_KEY,
      forcePathStyle: true,
    },
    {
      provider: 'aliyun',
      endpoint: s3.url,
      region: 'us-east-1',
      accessKeyId: 'WRONG',
      secretAccessKey: 'WRONG',
      forcePathStyle: true,
    },
  ]);
});

afterAll(async () => {
  await s3?.stop();
});

const problem = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('read');
};

describe(ObjectStores.name, () => {
  it('reads <bucket>/<key> from the provider it names', async () => {
    expect((await stores.read('aws', 'run-files/reports/q3.csv', 1_000)).toString()).toBe(
      'region,amount\nNorth,1\n',
    );
  });

  it.each([
    ['a missing object', 'aws', 'run-files/nope.csv', 1_000, 'aws object run-files/nope.csv not found'],
    [
      'a missing bucket',
      'aws',
      'no-such-bucket/a.csv',
      1_000,
      'aws object no-such-bucket/a.csv: no such bucket',
    ],
    [
      'an object over the cap',
      'aws',
      'run-files/big.bin',
      1_000,
      'aws object run-files/big.bin is 2000 bytes, over the limit of 1000 bytes',
    ],
    [
      'keys the store refuses',
      'aliyun',
      'run-files/reports/q3.csv',
      1_000,
      'aliyun object run-files/reports/q3.csv: access denied',
    ],
    [
      'a path without a key',
      'aws',
      'run-files',
      1_000,
      '"run-files" names no object in bucket run-files (the path is <bucket>/<key>)',
    ],
    [
      'a store not configured',
      'gcs',
      'run-files/reports/q3.csv',
      1_000,
      'object store "gcs" is not configured here (SWITCHYARD_OBJECT_STORES)',
    ],
  ] as const)('fails the file only for %s', async (_, provider, path, max, message) => {
    const err = await problem(stores.read(provider, path, max));
    expect(err).toBeInstanceOf(FileSourceError);
    expect((err as Error).message).toBe(message);
  });

  it('throws what may pass (the store unreachable) as it is: the task is tried again', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    const down = new ObjectStores([
      {
        provider: 'aws',
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        accessKeyId: 'a',
        secretAccessKey: 'b',
        forcePathStyle: true,
      },
    ]);
    const err = await problem(down.read('aws', 'run-files/reports/q3.csv', 1_000));
    expect(err).not.toBeInstanceOf(FileSourceError);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
  });
});

describe(objectLocationOf.name, () => {
  it.each([
    ['run-files/a/b.csv', { bucket: 'run-files', key: 'a/b.csv' }],
    ['my.bucket-1/x', { bucket: 'my.bucket-1', key: 'x' }],
    ['Upper/x', { problem: '"Upper/x" does not start with a bucket name (the path is <bucket>/<key>)' }],
    ['ab/x', { problem: '"ab/x" does not start with a bucket name (the path is <bucket>/<key>)' }],
    [
      '/run-files/x',
      { problem: '"/run-files/x" does not start with a bucket name (the path is <bucket>/<key>)' },
    ],
    [
      'run-files/',
      { problem: '"run-files/" names no object in bucket run-files (the path is <bucket>/<key>)' },
    ],
  ])('%s', (path, expected) => {
    expect(objectLocationOf(path)).toEqual(expected);
  });
});
