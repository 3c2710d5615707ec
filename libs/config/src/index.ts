export {
  loadConfig,
  loadConfigOrExit,
  configOrExit,
  ConfigException,
  baseEnvSchema,
  llmEnvSchema,
  STRUCTURED_OUTPUT_MODES,
  type StructuredOutputMode,
  port,
  type BaseEnv,
  type LlmEnv,
} from './lib/load-config';
export { SecretBox, secretEnvSchema, DEV_SECRET_KEY, type SecretEnv } from './lib/secret-box';
export {
  SERVICE_PORTS,
  SERVICE_NAMES,
  type ServiceName,
  servicePort,
  servicePortOrExit,
} from './lib/service-ports';
export {
  type WriteLocation,
  SANDBOX_DIR,
  MCP_STDIO_SERVERS,
  SERVICE_WRITES,
  writeLocationPath,
  absoluteDir,
} from './lib/write-paths';
