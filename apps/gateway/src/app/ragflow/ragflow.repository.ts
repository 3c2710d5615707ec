import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isUuid } from '@switchyard/contracts';
import type { RunWaiting } from '@switchyard/persistence';

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
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** A new session: a thread of the agent, with the name, user and Begin inputs it was made with. */
  async createSession(
    tenantId: string,
    agentId: string,
    ragflow: { name: string; user_id: string; inputs: Record<string, unknown> },
  ): Promise<SessionRow> {
    const [row] = (await this.ds.query(
      `INSERT INTO threads (id, tenant_id, agent_id, metadata) VALUES ($1, $2, $3, $4)
       RETURNING id, agent_id, created_at, created_at AS updated_at, metadata, 1 AS total`,
      [randomUUID(), tenantId, agentId, JSON.stringify({ ragflow })],
    )) as SessionRow[];
    return row;
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
    const order = `${q.orderBy === 'update_time' ? 'updated_at' : 't.created_at'} ${q.desc ? 'DESC' : 'ASC'}`;
    return (await this.ds.query(
      `SELECT t.id, t.agent_id, t.created_at, t.metadata,
              COALESCE((SELECT max(created_at) FROM runs r WHERE r.thread_id = t.id), t.created_at) AS updated_at,
              count(*) OVER ()::int AS total
       FROM threads t
       WHERE t.tenant_id = $1 AND t.agent_id = $2
         AND ($3::uuid IS NULL OR t.id = $3::uuid)
         AND ($4::text IS NULL OR t.metadata->'ragflow'->>'user_id' = $4)
       ORDER BY ${order}, t.id
       LIMIT $5 OFFSET $6`,
      [tenantId, agentId, q.id ?? null, q.userId ?? null, q.size, (q.page - 1) * q.size],
    )) as SessionRow[];
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
    return (await this.ds.query(
      `SELECT thread_id, input->>'prompt' AS prompt, output->>'answer' AS answer,
              CASE WHEN status = 'waiting' THEN waiting->>'question' END AS question, created_at
       FROM runs WHERE thread_id = ANY($1::uuid[]) AND input->>'prompt' IS NOT NULL
       ORDER BY created_at, id`,
      [threadIds],
    )) as SessionTurn[];
  }

  /** The session's run that waits for the user (a UserFillUp's form, a question), if one does. */
  async waitingRun(threadId: string): Promise<{ id: string; waiting: RunWaiting } | null> {
    const [row] = (await this.ds.query(
      `SELECT id, waiting FROM runs WHERE thread_id = $1 AND status = 'waiting' ORDER BY created_at DESC LIMIT 1`,
      [threadId],
    )) as { id: string; waiting: RunWaiting }[];
    return row ?? null;
  }
}
