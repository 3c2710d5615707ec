import { z } from 'zod';
import { loadConfig, secretEnvSchema } from '@switchyard/config';
import { type ComponentTimeouts, parseComponentTimeouts } from '@switchyard/graph';
import { hostListSchema } from '@switchyard/net-guard';
import { type ProviderEnv, providerEnvSchema } from '@switchyard/provider-tools';

const invokeEnvSchema = z.object({
  // Hosts the Invoke component may reach although they are not public (exact names or IPs).
  SWITCHYARD_INVOKE_ALLOW_HOSTS: hostListSchema,
  // Data-source hosts ExeSQL may reach although they are private or loopback (as sql_query's).
  SWITCHYARD_SQL_ALLOW_HOSTS: hostListSchema,
});

/** What the graph components that leave the process need: providers, the Invoke allow-list, time budgets. */
export class GraphProvidersConfig {
  readonly providers: ProviderEnv;
  readonly invokeAllowHosts: string[];
  readonly sqlAllowHosts: string[];
  readonly timeouts: ComponentTimeouts;
  readonly secretKey: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.providers = loadConfig(providerEnvSchema, env);
    const hosts = loadConfig(invokeEnvSchema, env);
    this.invokeAllowHosts = hosts.SWITCHYARD_INVOKE_ALLOW_HOSTS;
    this.sqlAllowHosts = hosts.SWITCHYARD_SQL_ALLOW_HOSTS;
    this.secretKey = loadConfig(secretEnvSchema, env).SWITCHYARD_SECRET_KEY;
    this.timeouts = parseComponentTimeouts(env);
  }
}
