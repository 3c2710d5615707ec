import type { DataSource } from 'typeorm';
import type { SecretBox } from '@switchyard/config';
import { ProviderKeysRepository } from './provider-keys.repository';
import type { Provider } from './provider-tools.config';

/**
 * A tenant's provider keys (`provider_keys`, sealed with SecretBox like vendor keys). Read for each
 * call, so a rotation or a revoke applies to the next call in every service.
 */
export class ProviderKeys {
  private readonly keys: ProviderKeysRepository;

  constructor(
    ds: DataSource,
    private readonly box: SecretBox,
  ) {
    this.keys = new ProviderKeysRepository(ds);
  }

  /** The tenant's active key for the provider, opened; undefined when there is none. */
  async activeKey(tenantId: string, provider: Provider): Promise<string | undefined> {
    const sealed = await this.keys.activeSealedSecret(tenantId, provider);
    return sealed !== undefined ? this.box.open(sealed) : undefined;
  }
}
