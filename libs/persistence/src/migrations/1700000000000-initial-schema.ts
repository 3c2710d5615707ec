import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants and keys, threads and runs, task bookkeeping (outbox), the delta log and snapshots. */
export class InitialSchema1700000000000 implements MigrationInterface {
  name = 'InitialSchema1700000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        prefix text NOT NULL,
        hash text NOT NULL UNIQUE,
        label text,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);
      CREATE TABLE threads (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        agent_id text NOT NULL,
        version integer NOT NULL DEFAULT 0,
        turns integer NOT NULL DEFAULT 0,
        active_run_id uuid,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX threads_tenant_idx ON threads (tenant_id);
      CREATE TABLE runs (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        thread_id uuid NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        agent_id text NOT NULL,
        turn integer,
        status text NOT NULL CHECK (status IN ('queued','running','waiting','succeeded','failed','cancelled')),
        request_id text,
        input jsonb NOT NULL,
        output jsonb,
        error jsonb,
        usage jsonb,
        steps integer NOT NULL DEFAULT 0,
        max_steps integer NOT NULL DEFAULT 50,
        cancel_requested boolean NOT NULL DEFAULT false,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      );
      CREATE INDEX runs_tenant_idx ON runs (tenant_id);
      CREATE INDEX runs_thread_idx ON runs (thread_id);
      CREATE UNIQUE INDEX runs_tenant_request_uq ON runs (tenant_id, request_id) WHERE request_id IS NOT NULL;
      CREATE TABLE run_tasks (
        id uuid PRIMARY KEY,
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        thread_id uuid NOT NULL,
        turn integer NOT NULL,
        step integer NOT NULL,
        seq integer NOT NULL,
        call_index integer NOT NULL,
        node text NOT NULL,
        subject text NOT NULL,
        version integer NOT NULL,
        attempt integer NOT NULL DEFAULT 1,
        status text NOT NULL CHECK (status IN ('pending','arrived','applied')),
        delta jsonb,
        deadline timestamptz NOT NULL,
        published_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX run_tasks_run_step_idx ON run_tasks (run_id, step, seq);
      CREATE INDEX run_tasks_unpublished_idx ON run_tasks (created_at) WHERE published_at IS NULL;
      CREATE TABLE state_deltas (
        thread_id uuid NOT NULL,
        version integer NOT NULL,
        task_id uuid NOT NULL UNIQUE,
        run_id uuid NOT NULL,
        node text NOT NULL,
        delta jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (thread_id, version)
      );
      CREATE INDEX state_deltas_run_idx ON state_deltas (run_id, version);
      CREATE TABLE state_snapshots (
        thread_id uuid NOT NULL,
        version integer NOT NULL,
        state jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (thread_id, version)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP TABLE state_snapshots, state_deltas, run_tasks, runs, threads, api_keys, tenants CASCADE`,
    );
  }
}
