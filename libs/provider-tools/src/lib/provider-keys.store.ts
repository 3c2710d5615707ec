import type { DataSource } from 'typeorm';
import type { SecretBox } from '@switchyard/config';
import type { Provider } from './provider-tools.config';

/**
 * A tenant's provider keys (`provider_keys`, sealed with SecretBox like vendor keys). Read for each
 * call, so a rotation or a revoke applies to the next call in every service.
 */
export class ProviderKeys {
  constructor(
    private readonly ds: DataSource,
    private readonly box: SecretBox,
  ) {}

  /** The tenant's active key for the provider, opened; undefined when there is none. */
  async activeKey(tenantId: string, provider: Provider): Promise<string | undefined> {
    const [row] = (await this.ds.query(
      `SELECT secret_sealed FROM provider_keys WHERE tenant_id = $1 AND provider = $2 AND status = 'active'`,
      [tenantId, provider],
    )) as { secret_sealed: string }[];
    return row ? this.box.open(row.secret_sealed) : undefined;
  }
}
