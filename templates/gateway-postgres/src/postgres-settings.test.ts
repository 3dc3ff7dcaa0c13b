import { describe, expect, it } from 'vitest';
import { readPostgresSettings, redactDatabaseUrl, SettingsError } from './postgres-settings.js';

describe('readPostgresSettings', () => {
  it('requires DATABASE_URL, with a message that says what to set', () => {
    expect(() => readPostgresSettings({})).toThrow(/DATABASE_URL is not set.*postgres:\/\//);
    expect(() => readPostgresSettings({ DATABASE_URL: 'mysql://x' })).toThrow(/postgres:\/\//);
  });

  it('reads the defaults and the overrides', () => {
    expect(readPostgresSettings({ DATABASE_URL: 'postgres://u@h/db' })).toMatchObject({
      host: '127.0.0.1', port: 8080, schema: 'public', maxConnections: 10, workerConcurrency: 4, workerId: undefined,
    });
    expect(
      readPostgresSettings({ DATABASE_URL: 'postgres://u@h/db', BERTH_DATABASE_SCHEMA: 'berth', BERTH_WORKER_CONCURRENCY: '8', BERTH_WORKER_ID: 'w1', PORT: '0' }),
    ).toMatchObject({ schema: 'berth', workerConcurrency: 8, workerId: 'w1', port: 0 });
    expect(() => readPostgresSettings({ DATABASE_URL: 'postgres://u@h/db', BERTH_DATABASE_SCHEMA: 'bad-name' })).toThrow(/BERTH_DATABASE_SCHEMA/);
    expect(() => readPostgresSettings({ DATABASE_URL: 'postgres://u@h/db', BERTH_WORKER_CONCURRENCY: '0' })).toThrow(/BERTH_WORKER_CONCURRENCY/);
  });

  it('reads the outbound URL settings: off unless true', () => {
    const base = { DATABASE_URL: 'postgres://u@h/db' };
    expect(readPostgresSettings(base)).toMatchObject({ allowLoopbackUrls: false, allowPrivateUrls: false });
    expect(readPostgresSettings({ ...base, BERTH_ALLOW_LOOPBACK_URLS: 'true', BERTH_ALLOW_PRIVATE_URLS: 'FALSE' })).toMatchObject({
      allowLoopbackUrls: true, allowPrivateUrls: false,
    });
    expect(() => readPostgresSettings({ ...base, BERTH_ALLOW_LOOPBACK_URLS: 'yes' })).toThrow(/BERTH_ALLOW_LOOPBACK_URLS "yes" must be true or false/);
  });

  it('reads the model file caps: 16 GiB per file and 256 GiB per model by default', () => {
    const base = { DATABASE_URL: 'postgres://u@h/db' };
    expect(readPostgresSettings(base)).toMatchObject({ maxModelFileBytes: 16 * 1024 ** 3, maxModelBytes: 256 * 1024 ** 3 });
    expect(readPostgresSettings({ ...base, BERTH_MAX_MODEL_FILE_BYTES: '4096', BERTH_MAX_MODEL_BYTES: '8192' })).toMatchObject({ maxModelFileBytes: 4096, maxModelBytes: 8192 });
    expect(() => readPostgresSettings({ ...base, BERTH_MAX_MODEL_FILE_BYTES: 'x' })).toThrow('BERTH_MAX_MODEL_FILE_BYTES');
  });

  it('reads the image settings, a malformed one as a SettingsError', () => {
    const base = { DATABASE_URL: 'postgres://u@h/db' };
    expect(readPostgresSettings({ ...base, BERTH_SYSTEM_ACCOUNT_ID: 'provider' }).images).toMatchObject({
      systemAccountId: 'provider', imageModelIds: { textToImage: 'imgmodel-1-schnell-fp8' },
    });
    expect(() => readPostgresSettings({ ...base, BERTH_IMAGE_MODEL_IDS: 'flux=x' })).toThrow(SettingsError);
  });

  it('redacts credentials for the log', () => {
    expect(redactDatabaseUrl('postgres://user:secret@db.example:5432/berth')).toBe('postgres://db.example:5432/berth');
  });
});
