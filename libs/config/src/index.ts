export {
  loadConfig,
  ConfigException,
  baseEnvSchema,
  llmEnvSchema,
  port,
  type BaseEnv,
  type LlmEnv,
} from './lib/load-config';
