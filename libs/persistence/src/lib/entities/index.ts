import { ApiKeyEntity } from './api-key.entity';
import { RunTaskEntity } from './run-task.entity';
import { RunEntity, type RunInput, type RunWaiting } from './run.entity';
import { StateDeltaEntity } from './state-delta.entity';
import { StateSnapshotEntity } from './state-snapshot.entity';
import { TenantEntity } from './tenant.entity';
import { ThreadEntity } from './thread.entity';

export const ENTITIES = [
  TenantEntity,
  ApiKeyEntity,
  ThreadEntity,
  RunEntity,
  RunTaskEntity,
  StateDeltaEntity,
  StateSnapshotEntity,
];
export {
  ApiKeyEntity,
  RunTaskEntity,
  RunEntity,
  type RunInput,
  type RunWaiting,
  StateDeltaEntity,
  StateSnapshotEntity,
  TenantEntity,
  ThreadEntity,
};
export type { RunTaskStatus } from './run-task.entity';
