import { describe, expect, it } from 'vitest';
import { systemContext } from '../kernel/request-context.js';
import { referenceSafetyChecker } from './reference-safety-checker.js';

describe('referenceSafetyChecker', () => {
  const ctx = systemContext('test');
  const checker = referenceSafetyChecker({ blockedTerms: ['forbidden', 'red flag', ' '], sensitiveTerms: ['storm'] });
  const image = { bytes: new Uint8Array(), contentType: 'image/png', width: 1, height: 1 };
  const prompt = (text: string, safetyTolerance = 2) => checker.reviewPrompt(ctx, { prompt: text, safetyTolerance, hasInputImage: false });
  const output = (text: string, safetyTolerance: number) => checker.reviewImage(ctx, { prompt: text, safetyTolerance, hasInputImage: false, image });

  it('refuses prompts with a blocked term or phrase, whole words, any case, at any tolerance', async () => {
    expect(await prompt('A Forbidden castle', 6)).toEqual({ allowed: false, reasons: ['blocked term: forbidden'] });
    expect(await prompt('a red flag waving')).toEqual({ allowed: false, reasons: ['blocked term: red flag'] });
    expect(await prompt('unforbiddenness')).toEqual({ allowed: true });
    expect(await prompt('a calm sea', 0)).toEqual({ allowed: true });
    expect(await prompt('a storm', 0)).toEqual({ allowed: true });
  });

  it('refuses outputs of sensitive prompts only below the sensitive tolerance', async () => {
    expect(await output('a Storm at sea', 0)).toEqual({ allowed: false, reasons: ['sensitive term: storm'] });
    expect(await output('a storm at sea', 1)).toMatchObject({ allowed: false });
    expect(await output('a storm at sea', 2)).toEqual({ allowed: true });
    expect(await output('a calm sea', 0)).toEqual({ allowed: true });
  });

  it('allows everything with no terms', async () => {
    const open = referenceSafetyChecker({ blockedTerms: [] });
    expect(await open.reviewPrompt(ctx, { prompt: 'forbidden', safetyTolerance: 0, hasInputImage: false })).toEqual({ allowed: true });
    expect(await open.reviewImage(ctx, { prompt: 'storm', safetyTolerance: 0, hasInputImage: false, image })).toEqual({ allowed: true });
  });
});
