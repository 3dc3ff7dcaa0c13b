import { describe, expect, it } from 'vitest';
import { defaultImageModelIds } from '../kernel/config.js';
import { imageModelId, imageModelRoleOf, parseImageModelIds } from './image-models.js';

describe('parseImageModelIds', () => {
  it('gives the reference ids when unset or blank', () => {
    expect(parseImageModelIds(undefined)).toEqual(defaultImageModelIds);
    expect(parseImageModelIds(' ')).toEqual({
      textToImage: 'imgmodel-1-schnell-fp8',
      kontextPro: 'imgmodel-kontext-pro',
      kontextMax: 'imgmodel-kontext-max',
    });
  });

  it('replaces the roles it names and keeps the others', () => {
    const ids = parseImageModelIds('text_to_image=flux-1-schnell-fp8, kontext_max = flux-kontext-max');
    expect(ids).toEqual({ textToImage: 'flux-1-schnell-fp8', kontextPro: 'imgmodel-kontext-pro', kontextMax: 'flux-kontext-max' });
    expect(imageModelId(ids, 'kontext_max')).toBe('flux-kontext-max');
    expect(imageModelRoleOf(ids, 'flux-1-schnell-fp8')).toBe('text_to_image');
    expect(imageModelRoleOf(ids, 'imgmodel-1-schnell-fp8')).toBeUndefined();
  });

  it('refuses unknown roles, repeats, bad ids and shared ids with the variable named', () => {
    expect(() => parseImageModelIds('kontext=x')).toThrow(/BERTH_IMAGE_MODEL_IDS: "kontext" is not one of text_to_image, kontext_pro, kontext_max/);
    expect(() => parseImageModelIds('kontext_pro=a,kontext_pro=b')).toThrow(/given twice/);
    expect(() => parseImageModelIds('kontext_pro=Bad Id')).toThrow(/id "Bad Id" of kontext_pro/);
    expect(() => parseImageModelIds('kontext_pro')).toThrow(/id "" of kontext_pro/);
    expect(() => parseImageModelIds('kontext_pro=same,kontext_max=same')).toThrow(/cannot share one id/);
  });
});
