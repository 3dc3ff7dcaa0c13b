import { describe, expect, it } from 'vitest';
import { readSettings } from './gateway-config.js';

describe('readSettings', () => {
  it('keeps outbound requests to loopback and private URLs off unless set to true', () => {
    expect(readSettings({})).toMatchObject({ allowLoopbackUrls: false, allowPrivateUrls: false });
    expect(readSettings({ BERTH_ALLOW_LOOPBACK_URLS: 'true', BERTH_ALLOW_PRIVATE_URLS: '' })).toMatchObject({ allowLoopbackUrls: true, allowPrivateUrls: false });
    expect(readSettings({ BERTH_ALLOW_PRIVATE_URLS: 'True' })).toMatchObject({ allowLoopbackUrls: false, allowPrivateUrls: true });
    expect(() => readSettings({ BERTH_ALLOW_LOOPBACK_URLS: '1' })).toThrow(/BERTH_ALLOW_LOOPBACK_URLS "1" must be true or false/);
  });

  it('reads the dataset file cap: 256 MiB by default, a positive byte count otherwise', () => {
    expect(readSettings({}).maxDatasetFileBytes).toBe(256 * 1024 * 1024);
    expect(readSettings({ BERTH_MAX_DATASET_FILE_BYTES: '1048576' }).maxDatasetFileBytes).toBe(1048576);
    expect(() => readSettings({ BERTH_MAX_DATASET_FILE_BYTES: '0' })).toThrow('BERTH_MAX_DATASET_FILE_BYTES');
    expect(() => readSettings({ BERTH_MAX_DATASET_FILE_BYTES: '10MB' })).toThrow('positive number of bytes');
  });

  it('reads the model file caps: 16 GiB per file and 256 GiB per model by default', () => {
    expect(readSettings({})).toMatchObject({ maxModelFileBytes: 16 * 1024 ** 3, maxModelBytes: 256 * 1024 ** 3 });
    expect(readSettings({ BERTH_MAX_MODEL_FILE_BYTES: '4096', BERTH_MAX_MODEL_BYTES: '8192' })).toMatchObject({ maxModelFileBytes: 4096, maxModelBytes: 8192 });
    expect(() => readSettings({ BERTH_MAX_MODEL_BYTES: '-1' })).toThrow('BERTH_MAX_MODEL_BYTES');
  });

  it('reads the image settings (parsed by readImageSettings from @berth/core)', () => {
    expect(readSettings({ BERTH_IMAGE_MODEL_IDS: 'kontext_pro=flux-kontext-pro' }).images)
      .toMatchObject({ systemAccountId: 'system', imageModelIds: { kontextPro: 'flux-kontext-pro' } });
    expect(() => readSettings({ BERTH_SYSTEM_ACCOUNT_ID: 'Big Co' })).toThrow(/BERTH_SYSTEM_ACCOUNT_ID "Big Co"/);
  });
});
