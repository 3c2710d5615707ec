import { TenantSchema } from '@switchyard/contracts';
import {
  CreateEndpointSchema,
  CreateModelSchema,
  CreateVendorKeySchema,
  CreateVendorSchema,
  PatchTenantSchema,
} from './registry.schemas';

const VENDOR = '3f1c2a52-1d7e-4c1a-9a3e-2f4b5c6d7e8f';

describe('model registry request schemas', () => {
  it('never quotes a rejected secret in its messages', () => {
    const secret = ' sk-live-DO-NOT-LEAK-0123456789 ';
    const parsed = CreateVendorKeySchema.safeParse({ secret, labell: 'x' });
    expect(parsed.success).toBe(false);
    const text = JSON.stringify(parsed.error?.issues);
    expect(text).toContain('secret');
    expect(text).toContain('labell');
    expect(text).not.toContain('DO-NOT-LEAK');
  });

  it('takes a key with or without a tenant', () => {
    expect(CreateVendorKeySchema.parse({ secret: 'sk-1' })).toEqual({ secret: 'sk-1' });
    expect(CreateVendorKeySchema.safeParse({ secret: 'sk-1', tenant_id: 'nope' }).success).toBe(false);
    expect(CreateVendorKeySchema.safeParse({ secret: '' }).success).toBe(false);
  });

  it('checks vendors and endpoints', () => {
    expect(CreateVendorSchema.safeParse({ name: 'oa', kind: 'openai' }).success).toBe(true);
    expect(CreateVendorSchema.safeParse({ name: 'oa', kind: 'azure' }).error?.issues[0].path).toEqual([
      'kind',
    ]);
    expect(
      CreateVendorSchema.safeParse({ name: 'oa', kind: 'ollama', base_url: 'ftp://x' }).error?.issues[0].path,
    ).toEqual(['base_url']);
    expect(CreateEndpointSchema.safeParse({ url: 'http://e/v1', categories: ['text', 'text'] }).success).toBe(
      false,
    );
    expect(CreateEndpointSchema.safeParse({ url: 'http://e/v1', categories: [] }).success).toBe(false);
    expect(CreateEndpointSchema.safeParse({ url: 'http://e/v1', categories: ['sound'] }).success).toBe(false);
  });

  it('fills model defaults and bounds prices', () => {
    expect(CreateModelSchema.parse({ vendor_id: VENDOR, name: 'm', category: 'text' })).toEqual({
      vendor_id: VENDOR,
      name: 'm',
      category: 'text',
      version: '',
      price_per_1k_input: 0,
      price_per_1k_output: 0,
    });
    const bad = CreateModelSchema.safeParse({
      vendor_id: VENDOR,
      name: 'm',
      category: 'text',
      price_per_1k_input: -1,
      context_window: 0,
    });
    expect(bad.error?.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'context_window',
      'price_per_1k_input',
    ]);
  });

  it("bounds a tenant's weight to (0, 1000], null meaning the default", () => {
    for (const weight of [0.5, 1, 3, 1000, null]) {
      expect(PatchTenantSchema.parse({ weight })).toEqual({ weight });
    }
    for (const weight of [0, -1, 1000.5, 1001, 'x', '3', true, {}]) {
      expect(PatchTenantSchema.safeParse({ weight }).error?.issues.map((i) => i.path.join('.'))).toEqual([
        'weight',
      ]);
    }
    expect(TenantSchema.shape.weight.safeParse(0).success).toBe(false);
  });
});
