import { Body, Controller, Get, Inject, Param, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AdminTokenGuard } from '../admin/admin-token.guard';
import { ApiErrorCode, ApiException } from '../http/api.exception';
import { ZodPipe } from '../http/zod-body.pipe';
import {
  type CreateEndpoint,
  CreateEndpointSchema,
  type CreateVendor,
  CreateVendorSchema,
  IdSchema,
} from './registry.schemas';
import {
  ENDPOINT_COLUMNS,
  type EndpointRow,
  VENDOR_COLUMNS,
  type VendorRow,
  endpointView,
  vendorView,
} from './registry.views';
import { RegistryChangedInterceptor } from './registry-changed.interceptor';

/** Model vendors and their endpoints (admin token). Keys: VendorKeysController. */
@Controller('v1/admin/vendors')
@UseGuards(AdminTokenGuard)
@UseInterceptors(RegistryChangedInterceptor)
export class VendorsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Post()
  async create(@Body(new ZodPipe(CreateVendorSchema)) body: CreateVendor) {
    const rows = (await this.ds.query(
      `INSERT INTO vendors (name, kind, base_url) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO NOTHING RETURNING ${VENDOR_COLUMNS}`,
      [body.name, body.kind, body.base_url ?? null],
    )) as VendorRow[];
    if (rows.length === 0) {
      throw new ApiException(ApiErrorCode.Conflict, `a vendor named "${body.name}" exists`);
    }
    return vendorView(rows[0]);
  }

  @Get()
  async list() {
    const rows = (await this.ds.query(
      `SELECT ${VENDOR_COLUMNS} FROM vendors ORDER BY created_at, id`,
    )) as VendorRow[];
    return { vendors: rows.map(vendorView) };
  }

  @Get(':vendor_id')
  async get(@Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string) {
    return vendorView(await vendorOrThrow(this.ds, vendorId));
  }

  /** One URL per vendor: a second endpoint with the same URL is a conflict, not a copy. */
  @Post(':vendor_id/endpoints')
  async createEndpoint(
    @Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string,
    @Body(new ZodPipe(CreateEndpointSchema)) body: CreateEndpoint,
  ) {
    return this.ds.transaction(async (m) => {
      await vendorOrThrow(m, vendorId, { forUpdate: true });
      const [dup] = (await m.query('SELECT id FROM vendor_endpoints WHERE vendor_id = $1 AND url = $2', [
        vendorId,
        body.url,
      ])) as { id: string }[];
      if (dup) {
        throw new ApiException(ApiErrorCode.Conflict, `the vendor has this endpoint already (${dup.id})`);
      }
      const [row] = (await m.query(
        `INSERT INTO vendor_endpoints (vendor_id, url, categories) VALUES ($1, $2, $3) RETURNING ${ENDPOINT_COLUMNS}`,
        [vendorId, body.url, body.categories],
      )) as EndpointRow[];
      return endpointView(row);
    });
  }

  @Get(':vendor_id/endpoints')
  async listEndpoints(@Param('vendor_id', new ZodPipe(IdSchema)) vendorId: string) {
    await vendorOrThrow(this.ds, vendorId);
    const rows = (await this.ds.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM vendor_endpoints WHERE vendor_id = $1 ORDER BY created_at, id`,
      [vendorId],
    )) as EndpointRow[];
    return { endpoints: rows.map(endpointView) };
  }
}

/**
 * The vendor row, or a 404. With `forUpdate` (inside a transaction) the row stays locked until it
 * ends, which serialises creates under one vendor so their duplicate checks hold.
 */
export async function vendorOrThrow(
  ds: Pick<DataSource, 'query'>,
  vendorId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<VendorRow> {
  const [row] = (await ds.query(
    `SELECT ${VENDOR_COLUMNS} FROM vendors WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [vendorId],
  )) as VendorRow[];
  if (!row) {
    throw ApiException.notFound('vendor');
  }
  return row;
}
