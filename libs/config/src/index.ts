export {
  loadConfig,
  loadConfigOrExit,
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
