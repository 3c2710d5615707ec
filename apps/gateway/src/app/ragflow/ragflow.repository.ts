import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DataSource } from 'typeorm';
import { isUuid } from '@switchyard/contracts';
import { type Db, type RunWaiting, kyselyOf } from '@switchyard/persistence';

/** A session as RAGFlow's agent API shows it: a thread of the agent, and what it asked for. */
export interface SessionRow {
  id: string;
  agent_id: string;
  created_at: Date;
  updated_at: Date;
  metadata: { ragflow?: { name?: string; user_id?: string; inputs?: Record<string, unknown> } };
  total: number;
}

/** One turn of a session: the prompt and the answer (null while it runs or waits). */
export interface SessionTurn {
  thread_id: string;
  prompt: string;
  answer: string | null;
  question: string | null;
  created_at: Date;
}

/** RAGFlow's agent sessions over Switchyard's threads (an agent's thread is a session). */
@Injectable()
export class RagflowRepository {
  private readonly db: Db;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.db = kyselyOf(ds);
  }

  /** A new session: a thread of the agent, with the name, user and Begin inputs it was made with. */
  async createSession(
    tenantId: string,
    agentId: string,
    ragflow: { name: string; user_id: string; inputs: Record<string, unknown> },
  ): Promise<SessionRow> {
    const row = await this.db
      .insertInto('threads')
      .values({
        id: randomUUID(),
        tenant_id: tenantId,
        agent_id: agentId,
        metadata: JSON.stringify({ ragflow }),
      })
      .returning([
        'id',
        'agent_id',
        'created_at',
        'created_at as updated_at',
        'metadata',
        sql<number>`1`.as('total'),
      ])
      .executeTakeFirstOrThrow();
    return { ...row, metadata: row.metadata as SessionRow['metadata'] };
  }

  /** The agent's sessions, a page at a time, by creation or last activity. */
  async sessions(
    tenantId: string,
    agentId: string,
    q: {
      id?: string;
      userId?: string;
      orderBy: 'create_time' | 'update_time';
      desc: boolean;
      page: number;
      size: number;
    },
  ): Promise<SessionRow[]> {
    let query = this.db
      .selectFrom('threads as t')
      .select((eb) => [
        't.id',
        't.agent_id',
        't.created_at',
        't.metadata',
        eb.fn
          .coalesce(
            eb
              .selectFrom('runs as r')
              .select((r) => r.fn.max('r.created_at').as('at'))
              .whereRef('r.thread_id', '=', 't.id'),
            't.created_at',
          )
          .as('updated_at'),
        // The window function: every page row carries the count of all matching sessions.
        sql<number>`count(*) OVER ()::int`.as('total'),
      ])
      .where('t.tenant_id', '=', tenantId)
      .where('t.agent_id', '=', agentId);
    if (q.id !== undefined) {
      query = query.where('t.id', '=', q.id);
    }
    if (q.userId !== undefined) {
      query = query.where(sql<string>`t.metadata->'ragflow'->>'user_id'`, '=', q.userId);
    }
    const rows = await query
      .orderBy(q.orderBy === 'update_time' ? 'updated_at' : 't.created_at', q.desc ? 'desc' : 'asc')
      .orderBy('t.id')
      .limit(q.size)
      .offset((q.page - 1) * q.size)
      .execute();
    return rows.map((r) => ({
      ...r,
      updated_at: r.updated_at as Date,
      metadata: r.metadata as SessionRow['metadata'],
    }));
  }

  /** One session of the agent (null: not a thread of this tenant's agent). */
  async session(tenantId: string, agentId: string, id: string): Promise<SessionRow | null> {
    if (!isUuid(id)) {
      return null;
    }
    const [row] = await this.sessions(tenantId, agentId, {
      id,
      orderBy: 'create_time',
      desc: true,
      page: 1,
      size: 1,
    });
    return row ?? null;
  }

  /** The turns of these sessions, oldest first. */
  async turns(threadIds: string[]): Promise<SessionTurn[]> {
    if (!threadIds.length) {
      return [];
    }
    return this.db
      .selectFrom('runs')
      .select([
        'thread_id',
        sql<string>`input->>'prompt'`.as('prompt'),
        sql<string | null>`output->>'answer'`.as('answer'),
        sql<string | null>`CASE WHEN status = 'waiting' THEN waiting->>'question' END`.as('question'),
        'created_at',
      ])
      .where('thread_id', '=', sql<string>`ANY(${threadIds}::uuid[])`)
      .where(sql<string>`input->>'prompt'`, 'is not', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** The session's run that waits for the user (a UserFillUp's form, a question), if one does. */
  async waitingRun(threadId: string): Promise<{ id: string; waiting: RunWaiting } | null> {
    const row = await this.db
      .selectFrom('runs')
      .select(['id', 'waiting'])
      .where('thread_id', '=', threadId)
      .where('status', '=', sql.lit('waiting'))
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { id: row.id, waiting: row.waiting as unknown as RunWaiting } : null;
  }
}
