import { z } from 'zod';
import { configOrExit, loadConfig } from './load-config';

/**
 * Each service's own port variable (the names deploy/local/env.sh sets) and its port when no
 * variable is set. The variable comes first, then `PORT` (the generic override: the image sets
 * `PORT=8080`), then the default — so a shell that exported env.sh and a container started from
 * the image both listen where they are told.
 */
export const SERVICE_PORTS = {
  gateway: { variable: 'GATEWAY_PORT', fallback: 8080 },
  'run-orchestrator': { variable: 'ORCHESTRATOR_PORT', fallback: 8081 },
  planner: { variable: 'PLANNER_PORT', fallback: 8082 },
  'tool-executor': { variable: 'TOOL_EXECUTOR_PORT', fallback: 8083 },
  reflection: { variable: 'REFLECTION_PORT', fallback: 8084 },
  retrieval: { variable: 'RETRIEVAL_PORT', fallback: 8085 },
  output: { variable: 'OUTPUT_PORT', fallback: 8086 },
} as const satisfies Record<string, { variable: string; fallback: number }>;

/** The seven services, by the names of their apps (`APP` in the image). */
export type AppName = keyof typeof SERVICE_PORTS;

const PORT_MESSAGE = 'must be a TCP port number (1-65535)';
// An empty variable (`PORT=` in a shell or a manifest) counts as not set.
const portVariable = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .string()
    .regex(/^\d{1,5}$/, PORT_MESSAGE)
    .transform(Number)
    .refine((n) => n >= 1 && n <= 65535, PORT_MESSAGE)
    .optional(),
);

/**
 * The port `service` listens on: its own variable, else `PORT`, else its default. Both variables
 * are checked when set; a bad one throws a ConfigException naming it.
 */
export function servicePort(service: AppName, env: NodeJS.ProcessEnv = process.env): number {
  const { variable, fallback } = SERVICE_PORTS[service];
  const cfg = loadConfig(z.object({ [variable]: portVariable, PORT: portVariable }), env) as Record<
    string,
    number | undefined
  >;
  return cfg[variable] ?? cfg['PORT'] ?? fallback;
}

/** `servicePort` for a service's main.ts: a bad variable ends the process (exit 78) naming it. */
export function servicePortOrExit(service: AppName): number {
  return configOrExit(service, () => servicePort(service));
}
