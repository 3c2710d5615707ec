import { loadConfig } from './load-config';
import { SecretBox, secretEnvSchema } from './secret-box';

const KEY = 'ab'.repeat(32);

describe('SecretBox', () => {
  it('opens what it sealed, with a fresh IV each time', () => {
    const box = new SecretBox(KEY);
    const a = box.seal('postgres://u:p@db/x');
    const b = box.seal('postgres://u:p@db/x');

    expect(a).not.toEqual(b);
    expect(a).not.toContain('postgres');
    expect(box.open(a)).toBe('postgres://u:p@db/x');
    expect(box.open(b)).toBe('postgres://u:p@db/x');
  });

  it('refuses a value sealed with another key and a tampered value', () => {
    const sealed = new SecretBox(KEY).seal('sk-123');
    const other = new SecretBox(Buffer.alloc(32, 7).toString('base64'));
    const [v, iv, tag, _data] = sealed.split(':');
    const tampered = [v, iv, tag, Buffer.from('sk-999').toString('base64')].join(':');

    expect(() => other.open(sealed)).toThrow(/wrong SWITCHYARD_SECRET_KEY or tampered/);
    expect(() => new SecretBox(KEY).open(tampered)).toThrow(/tampered/);
    expect(() => new SecretBox(KEY).open('plain-text')).toThrow(/not a sealed secret/);
  });

  it('validates SWITCHYARD_SECRET_KEY by name', () => {
    expect(() => loadConfig(secretEnvSchema, { SWITCHYARD_SECRET_KEY: 'short' })).toThrow(
      /SWITCHYARD_SECRET_KEY/,
    );
    expect(loadConfig(secretEnvSchema, { SWITCHYARD_SECRET_KEY: KEY }).SWITCHYARD_SECRET_KEY).toBe(KEY);
    expect(() => new SecretBox('nope')).toThrow(/SWITCHYARD_SECRET_KEY/);
    expect(() => loadConfig(secretEnvSchema, { NODE_ENV: 'production' })).toThrow(
      /SWITCHYARD_SECRET_KEY.*real key/,
    );
  });

  it('fingerprints without revealing', () => {
    expect(SecretBox.fingerprint('sk-123')).toMatch(/^[0-9a-f]{12}$/);
    expect(SecretBox.fingerprint('sk-123')).not.toContain('sk');
  });
});
