export { CodeSandbox, runCode } from './lib/code-sandbox';
export { type Confinement, probeConfinement } from './lib/confinement';
export { type SandboxConfig, sandboxConfigFromEnv } from './lib/sandbox.config';
export {
  type RunCodeFailure,
  type RunCodeRequest,
  type RunCodeResult,
  type RunCodeSuccess,
  type SandboxFailureCode,
  type SandboxGrants,
  type SandboxLanguage,
  RunCodeRequestSchema,
  SANDBOX_LANGUAGES,
} from './lib/sandbox.types';
