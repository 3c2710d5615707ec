export { PlatformModule, type PlatformOptions } from './lib/platform.module';
export { ServiceConfig, type ReadinessProbe } from './lib/platform.tokens';
export { Readiness } from './lib/readiness';
export { HealthController } from './lib/health.controller';
export { bootstrapService, type BootstrapOptions } from './lib/bootstrap';
export { NodeDirectory } from './lib/node-directory.service';
export { LoopAdmission, TenantWeights, taskFairDispatch, taskFairKey } from './lib/fair-dispatch';
export { GraphNodesRegistrar } from './lib/graph-nodes.registrar';
export { PeriodicJob } from './lib/periodic-job';
