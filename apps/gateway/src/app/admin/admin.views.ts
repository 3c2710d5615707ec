import type { ApiKeyView, CreatedApiKeyView } from '@switchyard/contracts';
import type { KeyRow } from './admin.repository';

// How /v1/admin/tenants/:id/keys shows a key (ApiKeySchema in @switchyard/contracts): never its hash.

export function apiKeyView(k: KeyRow): ApiKeyView {
  return {
    id: k.id,
    prefix: k.prefix,
    label: k.label,
    created_at: new Date(k.created_at).toISOString(),
    revoked_at: k.revoked_at ? new Date(k.revoked_at).toISOString() : null,
  };
}

/** A key just made: the only answer that shows the key itself. */
export function createdApiKeyView(k: KeyRow, key: string): CreatedApiKeyView {
  return { ...apiKeyView(k), key };
}
