import { ConfigException, loadConfig } from './load-config';
import { fileStoreLocation, objectStoreConnections, objectStoresEnvSchema } from './object-stores';

const problems = (env: NodeJS.ProcessEnv): string[] => {
  try {
    objectStoreConnections(env);
  } catch (err) {
    if (err instanceof ConfigException) {
      return err.problems;
    }
    throw err;
  }
  return [];
};

describe('SWITCHYARD_OBJECT_STORES', () => {
  it('lists the providers, trimmed, lower-cased and once each; empty by default', () => {
    const parse = (v?: string) =>
      loadConfig(objectStoresEnvSchema, v === undefined ? {} : { SWITCHYARD_OBJECT_STORES: v })
        .SWITCHYARD_OBJECT_STORES;
    expect(parse()).toEqual([]);
    expect(parse(' AWS , gcs,aws,')).toEqual(['aws', 'gcs']);
  });

  it('names an unknown provider', () => {
    expect(problems({ SWITCHYARD_OBJECT_STORES: 'aws,azure' })).toEqual([
      expect.stringMatching(/^SWITCHYARD_OBJECT_STORES \("aws,azure"\): .*aws, aliyun, tencent, gcs/),
    ]);
  });
});

describe(objectStoreConnections.name, () => {
  it("reads each enabled provider's connection, with its defaults", () => {
    expect(
      objectStoreConnections({
        SWITCHYARD_OBJECT_STORES: 'aws,gcs',
        SWITCHYARD_S3_AWS_ACCESS_KEY_ID: 'AKIA1',
        SWITCHYARD_S3_AWS_SECRET_ACCESS_KEY: 's1',
        SWITCHYARD_S3_GCS_ENDPOINT: 'https://storage.googleapis.com',
        SWITCHYARD_S3_GCS_ACCESS_KEY_ID: 'GOOG1',
        SWITCHYARD_S3_GCS_SECRET_ACCESS_KEY: 's2',
        SWITCHYARD_S3_GCS_FORCE_PATH_STYLE: 'true',
        // Not enabled: not read.
        SWITCHYARD_S3_ALIYUN_ENDPOINT: 'not a url',
      }),
    ).toEqual([
      {
        provider: 'aws',
        region: 'us-east-1',
        accessKeyId: 'AKIA1',
        secretAccessKey: 's1',
        forcePathStyle: false,
      },
      {
        provider: 'gcs',
        endpoint: 'https://storage.googleapis.com',
        region: 'auto',
        accessKeyId: 'GOOG1',
        secretAccessKey: 's2',
        forcePathStyle: true,
      },
    ]);
  });

  it('names every missing or bad variable of an enabled provider, secrets hidden', () => {
    const found = problems({
      SWITCHYARD_OBJECT_STORES: 'aliyun',
      SWITCHYARD_S3_ALIYUN_ENDPOINT: 'oss-cn-hangzhou.aliyuncs.com',
      SWITCHYARD_S3_ALIYUN_SECRET_ACCESS_KEY: 'hush',
      SWITCHYARD_S3_ALIYUN_FORCE_PATH_STYLE: 'yes',
    });
    expect(found).toEqual([
      expect.stringMatching(
        /^SWITCHYARD_S3_ALIYUN_ENDPOINT \("oss-cn-hangzhou.aliyuncs.com"\): must be an http/,
      ),
      expect.stringMatching(
        /^SWITCHYARD_S3_ALIYUN_ACCESS_KEY_ID \(set \(hidden\)|^SWITCHYARD_S3_ALIYUN_ACCESS_KEY_ID \(not set\)/,
      ),
      expect.stringMatching(/^SWITCHYARD_S3_ALIYUN_FORCE_PATH_STYLE \("yes"\)/),
    ]);
    expect(found.join('\n')).not.toContain('hush');
  });

  it('needs no endpoint for AWS only', () => {
    const keys = { SWITCHYARD_S3_TENCENT_ACCESS_KEY_ID: 'a', SWITCHYARD_S3_TENCENT_SECRET_ACCESS_KEY: 'b' };
    expect(problems({ SWITCHYARD_OBJECT_STORES: 'tencent', ...keys })).toEqual([
      expect.stringMatching(/^SWITCHYARD_S3_TENCENT_ENDPOINT \(not set\)/),
    ]);
  });
});

describe('SWITCHYARD_FILE_STORE', () => {
  const where = (env: NodeJS.ProcessEnv) => {
    try {
      return fileStoreLocation(env);
    } catch (err) {
      if (err instanceof ConfigException) {
        return err.problems;
      }
      throw err;
    }
  };

  it('is Postgres by default or when said', () => {
    expect(where({})).toBeNull();
    expect(where({ SWITCHYARD_FILE_STORE: 'postgres' })).toBeNull();
  });

  it('names an enabled store, a bucket and an optional prefix (one trailing slash)', () => {
    const env = { SWITCHYARD_OBJECT_STORES: 'aws,gcs' };
    expect(where({ ...env, SWITCHYARD_FILE_STORE: 'aws:sy-files' })).toEqual({
      provider: 'aws',
      bucket: 'sy-files',
      prefix: '',
    });
    expect(where({ ...env, SWITCHYARD_FILE_STORE: 'gcs:sy.files/prod/tenants/' })).toEqual({
      provider: 'gcs',
      bucket: 'sy.files',
      prefix: 'prod/tenants/',
    });
  });

  it('refuses a store not enabled, or a value of another shape, naming the variable', () => {
    expect(where({ SWITCHYARD_OBJECT_STORES: 'aws', SWITCHYARD_FILE_STORE: 'tencent:files' })).toEqual([
      'SWITCHYARD_FILE_STORE ("tencent:files"): "tencent" is not an object store this deployment enabled (SWITCHYARD_OBJECT_STORES: aws)',
    ]);
    expect(where({ SWITCHYARD_FILE_STORE: 's3://files' })).toEqual([
      'SWITCHYARD_FILE_STORE ("s3://files"): must be "postgres" or <provider>:<bucket>[/<prefix>]',
    ]);
    expect(where({ SWITCHYARD_OBJECT_STORES: 'aws', SWITCHYARD_FILE_STORE: 'aws:No_Bucket' })).toHaveLength(
      1,
    );
  });
});
