import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { KV } from 'nats';
import { DataSource } from 'typeorm';
import {
  CANCEL_FENCE_BUCKET,
  CANCEL_FENCE_TTL_MS,
  type CancelAcks,
  CancelAckSchema,
  cancelAckSubject,
  cancelSubject,
} from '@switchyard/contracts';
import { JetStreamConnection, decodeJson, encodeJson } from '@switchyard/jetstream';
import { NodeDirectory } from '@switchyard/platform';
import { OrchestratorConfig } from './orchestrator.config';
import { RunsRepository } from './runs.repository';

// After the last expected service answered, other replicas of it get this long to answer too.
const REPLICA_GRACE_MS = 50;

/**
 * Carries out a committed cancel: puts the run into the cancel fence (a KV key every node
 * service watches: a replica that misses the broadcast, or starts later, still never starts a
 * task of the run), broadcasts `sy.cancel.<run_id>`, and gathers the services' acknowledgements —
 * which of the run's unfinished tasks each instance aborted — until every service that serves one
 * of them answered, or SWITCHYARD_CANCEL_ACK_WAIT_MS passed.
 */
@Injectable()
export class CancelFence implements OnApplicationBootstrap {
  private readonly logger = new Logger(CancelFence.name);
  private kv?: KV;
  private readonly runs: RunsRepository;

  constructor(
    @Inject(DataSource) ds: DataSource,
    @Inject(JetStreamConnection) private readonly nats: JetStreamConnection,
    @Inject(NodeDirectory) private readonly directory: NodeDirectory,
    @Inject(OrchestratorConfig) private readonly config: OrchestratorConfig,
  ) {
    this.runs = new RunsRepository(ds);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.kv = await this.nats.kv(CANCEL_FENCE_BUCKET, { ttlMs: CANCEL_FENCE_TTL_MS });
  }

  async cancel(runId: string): Promise<CancelAcks> {
    const rows = await this.runs.pendingTasks(runId);
    const pending = await Promise.all(
      rows.map(async (r) => {
        const reg = await this.directory.lookup(r.node);
        return { task_id: r.id, node: r.node, service: reg?.kind === 'service' ? reg.service : null };
      }),
    );
    const expected = new Set(pending.flatMap((p) => (p.service ? [p.service] : [])));
    const acks: CancelAcks['acks'] = [];
    let acknowledgedAt: string | null = null;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    let grace: NodeJS.Timeout | undefined;
    const answered = new Set<string>();
    const sub = this.nats.nc.subscribe(cancelAckSubject(runId), {
      callback: (err, msg) => {
        const ack = err ? undefined : CancelAckSchema.safeParse(safeDecode(msg.data));
        if (!ack?.success) {
          return;
        }
        const { run_id: _run, ...rest } = ack.data;
        acks.push(rest);
        acknowledgedAt = new Date().toISOString();
        answered.add(rest.service);
        if ([...expected].every((s) => answered.has(s))) {
          clearTimeout(grace);
          grace = setTimeout(settle, REPLICA_GRACE_MS);
        }
      },
    });
    const timer = setTimeout(settle, this.config.cancelAckWaitMs);
    try {
      await this.kv?.put(runId, encodeJson({ cancelled_at: new Date().toISOString() }));
    } catch (err) {
      this.logger.warn({ run_id: runId, msg: `cancel fence not written: ${(err as Error).message}` });
    }
    this.nats.nc.publish(cancelSubject(runId));
    if (expected.size === 0) {
      // Nothing of the run was in flight: no service has anything to abort.
      settle();
    }
    await settled;
    clearTimeout(timer);
    clearTimeout(grace);
    sub.unsubscribe();
    const complete = [...expected].every((s) => answered.has(s));
    if (!complete) {
      this.logger.warn({
        run_id: runId,
        msg: `cancel not acknowledged by ${[...expected].filter((s) => !answered.has(s)).join(', ')} within ${this.config.cancelAckWaitMs} ms`,
      });
    }
    return { pending, acks, complete, acknowledged_at: acknowledgedAt };
  }
}

function safeDecode(data: Uint8Array): unknown {
  try {
    return decodeJson(data);
  } catch {
    return undefined;
  }
}
