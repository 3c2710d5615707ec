export {
  loadConfig,
  loadConfigOrExit,
  ConfigException,
  baseEnvSchema,
  llmEnvSchema,
  port,
  type BaseEnv,
  type LlmEnv,
} from './lib/load-config';
export { SecretBox, secretEnvSchema, DEV_SECRET_KEY, type SecretEnv } from './lib/secret-box';
