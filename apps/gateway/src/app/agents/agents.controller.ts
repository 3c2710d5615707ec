import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  UseGuards,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { type AgentConfig, AgentConfigSchema } from '@switchyard/contracts';
import { ApiKeyGuard, Tenant, type TenantContext } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import { assertAgentConfig, shownConfig, storedConfig } from './agent-config.validator';

export const CreateAgentSchema = AgentConfigSchema;
export const PatchAgentSchema = AgentConfigSchema.partial().strict();
const IdSchema = z.string().uuid();

interface AgentRow {
  id: string;
  name: string;
  draft: AgentConfig;
  created_at: Date;
  updated_at: Date;
  latest_version_id: string | null;
  latest_version: number | null;
}

/**
 * Agents: an editable draft and immutable published versions. Creating one publishes version 1;
 * `PATCH` edits the draft; `POST …/versions` publishes it. A run uses the latest published
 * version (or `draft`, or a version id) and keeps that configuration to its end.
 */
@Controller('v1/agents')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class AgentsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Post()
  async create(@Tenant() tenant: TenantContext, @Body(new ZodPipe(CreateAgentSchema)) body: AgentConfig) {
    assertAgentConfig(body);
    return this.ds.transaction(async (m) => {
      const [agent] = (await m.query(
        'INSERT INTO agents (tenant_id, name, draft) VALUES ($1, $2, $3) RETURNING id, created_at',
        [tenant.tenantId, body.name, JSON.stringify(storedConfig(body))],
      )) as { id: string; created_at: Date }[];
      const [version] = (await m.query(
        'INSERT INTO agent_versions (agent_id, version, config) VALUES ($1, 1, $2) RETURNING id',
        [agent.id, JSON.stringify(storedConfig(body))],
      )) as { id: string }[];
      return {
        id: agent.id,
        version: version.id,
        version_number: 1,
        ...body,
        created_at: agent.created_at.toISOString(),
      };
    });
  }

  @Get()
  async list(@Tenant() tenant: TenantContext) {
    return { agents: (await this.rows(tenant.tenantId)).map(view) };
  }

  @Get(':agent_id')
  async get(@Tenant() tenant: TenantContext, @Param('agent_id', new ZodPipe(IdSchema)) id: string) {
    return view(await this.one(tenant.tenantId, id));
  }

  @Patch(':agent_id')
  async patch(
    @Tenant() tenant: TenantContext,
    @Param('agent_id', new ZodPipe(IdSchema)) id: string,
    @Body(new ZodPipe(PatchAgentSchema)) body: Partial<AgentConfig>,
  ) {
    const current = await this.one(tenant.tenantId, id);
    const draft = AgentConfigSchema.parse({ ...current.draft, ...body });
    assertAgentConfig(draft);
    await this.ds.query('UPDATE agents SET draft = $2, name = $3, updated_at = now() WHERE id = $1', [
      id,
      JSON.stringify(storedConfig(draft)),
      draft.name,
    ]);
    return view({ ...current, draft, name: draft.name });
  }

  @Delete(':agent_id')
  @HttpCode(200)
  async remove(@Tenant() tenant: TenantContext, @Param('agent_id', new ZodPipe(IdSchema)) id: string) {
    await this.one(tenant.tenantId, id);
    await this.ds.query('UPDATE agents SET deleted_at = now() WHERE id = $1', [id]);
    return { id, deleted: true };
  }

  @Post(':agent_id/versions')
  async publish(@Tenant() tenant: TenantContext, @Param('agent_id', new ZodPipe(IdSchema)) id: string) {
    const agent = await this.one(tenant.tenantId, id);
    const [row] = (await this.ds.query(
      `INSERT INTO agent_versions (agent_id, version, config)
       SELECT $1, COALESCE(max(version), 0) + 1, $2 FROM agent_versions WHERE agent_id = $1
       RETURNING id, version, created_at`,
      [id, JSON.stringify(agent.draft)],
    )) as { id: string; version: number; created_at: Date }[];
    return {
      id: row.id,
      agent_id: id,
      version: row.version,
      config: shownConfig(agent.draft),
      created_at: row.created_at.toISOString(),
    };
  }

  @Get(':agent_id/versions')
  async versions(@Tenant() tenant: TenantContext, @Param('agent_id', new ZodPipe(IdSchema)) id: string) {
    await this.one(tenant.tenantId, id);
    const rows = (await this.ds.query(
      'SELECT id, version, config, created_at FROM agent_versions WHERE agent_id = $1 ORDER BY version',
      [id],
    )) as { id: string; version: number; config: AgentConfig; created_at: Date }[];
    return {
      versions: rows.map((r) => ({
        ...r,
        config: shownConfig(r.config),
        agent_id: id,
        created_at: r.created_at.toISOString(),
      })),
    };
  }

  private async rows(tenantId: string, id?: string): Promise<AgentRow[]> {
    return (await this.ds.query(
      `SELECT a.id, a.name, a.draft, a.created_at, a.updated_at, v.id AS latest_version_id, v.version AS latest_version
       FROM agents a
       LEFT JOIN LATERAL (SELECT id, version FROM agent_versions WHERE agent_id = a.id ORDER BY version DESC LIMIT 1) v ON true
       WHERE a.tenant_id = $1 AND a.deleted_at IS NULL AND ($2::uuid IS NULL OR a.id = $2)
       ORDER BY a.created_at`,
      [tenantId, id ?? null],
    )) as AgentRow[];
  }

  private async one(tenantId: string, id: string): Promise<AgentRow> {
    const [row] = await this.rows(tenantId, id);
    if (!row) {
      throw ApiException.notFound('agent');
    }
    return row;
  }
}

function view(a: AgentRow) {
  return {
    id: a.id,
    name: a.name,
    draft: shownConfig(a.draft),
    version: a.latest_version_id,
    version_number: a.latest_version,
    created_at: new Date(a.created_at).toISOString(),
    updated_at: new Date(a.updated_at).toISOString(),
  };
}
