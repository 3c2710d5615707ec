import { resolve } from 'node:path';
import { z } from 'zod';
import {
  type ObjectStoreConnection,
  loadConfig,
  objectStoreConnections,
  secretEnvSchema,
} from '@switchyard/config';
import { parseHostAllowList } from '@switchyard/contracts';
import { toolLimitsEnvSchema } from '@switchyard/worker';
import { type HostLookup, dnsEnvSchema, toolLookup } from '@switchyard/net-guard';

// A comma-separated list of host names (the rule every allow-list variable follows).
const hostList = () =>
  z
    .string()
    .default('')
    .transform((v) => parseHostAllowList(v));

const schema = toolLimitsEnvSchema.extend(dnsEnvSchema.shape).extend({
  // Hosts http_get may reach although they resolve to private addresses (operators' internal APIs).
  SWITCHYARD_HTTP_ALLOW_HOSTS: hostList(),
  SWITCHYARD_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // The directory `preprocess` reads local files from (mapping.provider 'local' or local_path).
  SWITCHYARD_FILES_ROOT: z.string().min(1).optional(),
  SWITCHYARD_FILES_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  // Data-source hosts sql_query may reach although they are (or resolve to) private or loopback addresses.
  SWITCHYARD_SQL_ALLOW_HOSTS: hostList(),
});

export class ToolExecutorConfig {
  readonly allowHosts: string[];
  readonly timeoutMs: number;
  readonly filesRoot: string;
  readonly filesMaxBytes: number;
  /** The object stores `preprocess` reads run files from (SWITCHYARD_OBJECT_STORES, SWITCHYARD_S3_*). */
  readonly objectStores: ObjectStoreConnection[];
  readonly toolTimeoutMs: number;
  readonly toolOutputMaxBytes: number;
  readonly sqlAllowHosts: string[];
  /** How http_get and http_request resolve host names (SWITCHYARD_DNS_SERVERS, else the system). */
  readonly lookup: HostLookup;
  /** Opens the sealed DSNs of data sources (the gateway sealed them with the same key). */
  readonly secretKey: string;
  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cfg = loadConfig(schema, env);
    this.allowHosts = cfg.SWITCHYARD_HTTP_ALLOW_HOSTS;
    this.timeoutMs = cfg.SWITCHYARD_HTTP_TIMEOUT_MS;
    this.filesRoot = resolve(cfg.SWITCHYARD_FILES_ROOT ?? 'tmp/files');
    this.filesMaxBytes = cfg.SWITCHYARD_FILES_MAX_BYTES;
    this.objectStores = objectStoreConnections(env);
    this.toolTimeoutMs = cfg.SWITCHYARD_TOOL_TIMEOUT_MS;
    this.toolOutputMaxBytes = cfg.SWITCHYARD_TOOL_OUTPUT_MAX_BYTES;
    this.sqlAllowHosts = cfg.SWITCHYARD_SQL_ALLOW_HOSTS;
    this.lookup = toolLookup(cfg);
    this.secretKey = loadConfig(secretEnvSchema, env).SWITCHYARD_SECRET_KEY;
  }
}
