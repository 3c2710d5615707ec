export {
  loadConfig,
  loadConfigOrExit,
  ConfigException,
  baseEnvSchema,
  llmEnvSchema,
  tenantCacheEnvSchema,
  STRUCTURED_OUTPUT_MODES,
  type StructuredOutputMode,
  port,
  type BaseEnv,
  type LlmEnv,
} from './lib/load-config';
export { SecretBox, secretEnvSchema, DEV_SECRET_KEY, type SecretEnv } from './lib/secret-box';
export { SERVICE_PORTS, type AppName, servicePort, servicePortOrExit } from './lib/service-ports';
export {
  type WriteLocation,
  SANDBOX_DIR,
  SERVICE_WRITES,
  writeLocationPath,
  absoluteDir,
} from './lib/write-paths';
export {
  OBJECT_STORE_PROVIDERS,
  type ObjectStoreProvider,
  type ObjectStoreConnection,
  objectStoresEnvSchema,
  objectStoreConnections,
  objectStoreEnvPrefix,
  type FileStoreLocation,
  fileStoreLocation,
} from './lib/object-stores';
