import { describe, expect, it } from 'vitest';
import { readSettings } from './gateway-config.js';

describe('readSettings', () => {
  it('keeps outbound requests to loopback and private URLs off unless set to true', () => {
    expect(readSettings({})).toMatchObject({ allowLoopbackUrls: false, allowPrivateUrls: false });
    expect(readSettings({ BERTH_ALLOW_LOOPBACK_URLS: 'true', BERTH_ALLOW_PRIVATE_URLS: '' })).toMatchObject({ allowLoopbackUrls: true, allowPrivateUrls: false });
    expect(readSettings({ BERTH_ALLOW_PRIVATE_URLS: 'True' })).toMatchObject({ allowLoopbackUrls: false, allowPrivateUrls: true });
    expect(() => readSettings({ BERTH_ALLOW_LOOPBACK_URLS: '1' })).toThrow(/BERTH_ALLOW_LOOPBACK_URLS "1" must be true or false/);
  });

  it('reads the image settings: system account, model ids and the safety terms', () => {
    expect(readSettings({})).toMatchObject({
      systemAccountId: 'system',
      imageModelIds: { textToImage: 'imgmodel-1-schnell-fp8', kontextPro: 'imgmodel-kontext-pro', kontextMax: 'imgmodel-kontext-max' },
      imageBlockedTerms: [],
      imageSensitiveTerms: [],
    });
    const settings = readSettings({
      BERTH_SYSTEM_ACCOUNT_ID: 'provider',
      BERTH_IMAGE_MODEL_IDS: 'kontext_pro=flux-kontext-pro',
      BERTH_IMAGE_BLOCKED_TERMS: 'weapon, gore ,',
      BERTH_IMAGE_SENSITIVE_TERMS: 'storm',
    });
    expect(settings).toMatchObject({
      systemAccountId: 'provider',
      imageModelIds: { kontextPro: 'flux-kontext-pro', kontextMax: 'imgmodel-kontext-max' },
      imageBlockedTerms: ['weapon', 'gore'],
      imageSensitiveTerms: ['storm'],
    });
    expect(() => readSettings({ BERTH_SYSTEM_ACCOUNT_ID: 'Big Co' })).toThrow(/BERTH_SYSTEM_ACCOUNT_ID "Big Co"/);
    expect(() => readSettings({ BERTH_IMAGE_MODEL_IDS: 'flux=x' })).toThrow(/BERTH_IMAGE_MODEL_IDS/);
  });
});
