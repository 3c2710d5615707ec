import type { BaseEnv } from '@switchyard/config';

/** The validated base configuration of a service (class token: no string DI tokens). */
export abstract class ServiceConfig {
  abstract readonly service: string;
  abstract readonly env: BaseEnv;
}

/** One dependency `/readyz` checks. */
export interface ReadinessProbe {
  readonly name: string;
  check(): Promise<void>;
}
