import { accessSync, constants } from 'node:fs';
import { z } from 'zod';
import { loadConfig, secretEnvSchema } from '@switchyard/config';
import { type ComponentTimeouts, parseComponentTimeouts } from '@switchyard/graph';
import { hostListSchema } from '@switchyard/net-guard';
import { type ProviderEnv, WEB_TOOLS, providerEnvSchema, webToolUrls } from '@switchyard/provider-tools';

const invokeEnvSchema = z.object({
  // Hosts the Invoke component may reach although they are not public (exact names or IPs).
  SWITCHYARD_INVOKE_ALLOW_HOSTS: hostListSchema,
  // Data-source hosts ExeSQL may reach although they are private or loopback (as sql_query's).
  SWITCHYARD_SQL_ALLOW_HOSTS: hostListSchema,
  // A TrueType/OpenType font DocGenerator's PDFs draw their text with (needed beyond Latin-1).
  SWITCHYARD_DOCS_PDF_FONT: z
    .string()
    .optional()
    .refine(
      (path) => {
        if (!path) {
          return true;
        }
        try {
          accessSync(path, constants.R_OK);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'not a readable font file' },
    ),
});

/** What the graph components that leave the process need: providers, the Invoke allow-list, time budgets. */
export class GraphProvidersConfig {
  readonly providers: ProviderEnv;
  readonly invokeAllowHosts: string[];
  readonly sqlAllowHosts: string[];
  readonly timeouts: ComponentTimeouts;
  readonly secretKey: string;
  readonly docsPdfFont: string | undefined;
  /** Each web tool's base URL (SWITCHYARD_PROVIDER_URL_<TOOL>), by component name. */
  readonly webToolUrls: Record<string, string>;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.providers = loadConfig(providerEnvSchema, env);
    const hosts = loadConfig(invokeEnvSchema, env);
    this.invokeAllowHosts = hosts.SWITCHYARD_INVOKE_ALLOW_HOSTS;
    this.sqlAllowHosts = hosts.SWITCHYARD_SQL_ALLOW_HOSTS;
    this.docsPdfFont = hosts.SWITCHYARD_DOCS_PDF_FONT || undefined;
    this.secretKey = loadConfig(secretEnvSchema, env).SWITCHYARD_SECRET_KEY;
    this.timeouts = parseComponentTimeouts(env);
    this.webToolUrls = webToolUrls(WEB_TOOLS, env);
  }
}
