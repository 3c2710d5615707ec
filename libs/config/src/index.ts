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
