import { ApiKeyEntity } from './api-key.entity';
import { MODEL_CATEGORIES, type ModelCategory, ModelEntity, type ModelParser } from './model.entity';
import { ModelUsageEntity } from './model-usage.entity';
import { VendorEndpointEntity } from './vendor-endpoint.entity';
import { VendorEntity, type VendorKind } from './vendor.entity';
import { VendorKeyEntity, type VendorKeyStatus } from './vendor-key.entity';
import { RunTaskEntity } from './run-task.entity';
import { RunEntity, type RunInput, type RunWaiting, type WaitingClientCall } from './run.entity';
import { StateDeltaEntity } from './state-delta.entity';
import { StateSnapshotEntity } from './state-snapshot.entity';
import { TenantEntity } from './tenant.entity';
import { ThreadEntity } from './thread.entity';
import { UserProfileEntity } from './user-profile.entity';

export const ENTITIES = [
  TenantEntity,
  ApiKeyEntity,
  ThreadEntity,
  RunEntity,
  RunTaskEntity,
  StateDeltaEntity,
  StateSnapshotEntity,
  VendorEntity,
  VendorKeyEntity,
  VendorEndpointEntity,
  ModelEntity,
  ModelUsageEntity,
  UserProfileEntity,
];
export {
  ApiKeyEntity,
  MODEL_CATEGORIES,
  type ModelCategory,
  ModelEntity,
  type ModelParser,
  ModelUsageEntity,
  VendorEndpointEntity,
  VendorEntity,
  type VendorKind,
  VendorKeyEntity,
  type VendorKeyStatus,
  RunTaskEntity,
  RunEntity,
  type RunInput,
  type RunWaiting,
  type WaitingClientCall,
  StateDeltaEntity,
  StateSnapshotEntity,
  TenantEntity,
  ThreadEntity,
  UserProfileEntity,
};
export type { RunTaskStatus } from './run-task.entity';
export { type McpServerRow, mcpServerRowOf } from './mcp-server.row';
