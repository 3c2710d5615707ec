export { NodeHandler, NodePrefixHandler, NODE_SPEC, type NodeSpec } from './lib/node-handler.decorator';
export { NodeRuntime, MAX_DELIVER, type NodeInput, type NodeOutput, type NodeImpl } from './lib/node-runtime';
export { NodeRegistrar } from './lib/node-registrar';
export { CancelRegistry } from './lib/cancel.registry';
export { WorkerModule } from './lib/worker.module';
export { bootstrapNodeService } from './lib/bootstrap-node-service';
export { toolArgs, parseToolArgs, ToolInputException, asToolOutput } from './lib/tool-args';
export { taskTenant, TaskTenantMissingError } from './lib/task-tenant';
export {
  ToolRunner,
  ToolLimits,
  toolLimitsEnvSchema,
  type ToolContext,
  type ToolDeclaration,
} from './lib/tools/tool-runner';
export { shrinkToFit } from './lib/tools/output-cap';
export { guardToolWork, ToolCrashError } from './lib/tools/tool-guard';
export { ToolReceipts, OUTCOME_UNKNOWN } from './lib/tools/tool-receipts';
