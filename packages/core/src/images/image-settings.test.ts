import { describe, expect, it } from 'vitest';
import { readImageSettings } from './image-settings.js';

describe('readImageSettings', () => {
  it('gives the defaults for an empty environment', () => {
    expect(readImageSettings({})).toEqual({
      systemAccountId: 'system',
      imageModelIds: { textToImage: 'imgmodel-1-schnell-fp8', kontextPro: 'imgmodel-kontext-pro', kontextMax: 'imgmodel-kontext-max' },
      imageBlockedTerms: [],
      imageSensitiveTerms: [],
    });
    expect(readImageSettings({ BERTH_SYSTEM_ACCOUNT_ID: '' }).systemAccountId).toBe('system');
  });

  it('reads the system account, model ids and the safety terms', () => {
    expect(readImageSettings({
      BERTH_SYSTEM_ACCOUNT_ID: 'provider',
      BERTH_IMAGE_MODEL_IDS: 'kontext_pro=flux-kontext-pro',
      BERTH_IMAGE_BLOCKED_TERMS: 'weapon, gore ,',
      BERTH_IMAGE_SENSITIVE_TERMS: 'storm',
    })).toMatchObject({
      systemAccountId: 'provider',
      imageModelIds: { kontextPro: 'flux-kontext-pro', kontextMax: 'imgmodel-kontext-max' },
      imageBlockedTerms: ['weapon', 'gore'],
      imageSensitiveTerms: ['storm'],
    });
  });

  it('names the variable that is malformed', () => {
    expect(() => readImageSettings({ BERTH_SYSTEM_ACCOUNT_ID: 'Big Co' })).toThrow(/BERTH_SYSTEM_ACCOUNT_ID "Big Co"/);
    expect(() => readImageSettings({ BERTH_IMAGE_MODEL_IDS: 'flux=x' })).toThrow(/BERTH_IMAGE_MODEL_IDS/);
  });
});
