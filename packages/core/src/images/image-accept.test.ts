import { describe, expect, it } from 'vitest';
import { textToImageForm } from './image-accept.js';

describe('textToImageForm', () => {
  it('answers JPEG bytes without an Accept header or with wildcards', () => {
    expect(textToImageForm(undefined)).toBe('image/jpeg');
    expect(textToImageForm('')).toBe('image/jpeg');
    expect(textToImageForm('*/*')).toBe('image/jpeg');
    expect(textToImageForm('image/*')).toBe('image/jpeg');
  });

  it('follows an explicit media type', () => {
    expect(textToImageForm('image/png')).toBe('image/png');
    expect(textToImageForm('image/jpeg')).toBe('image/jpeg');
    expect(textToImageForm('application/json')).toBe('application/json');
    expect(textToImageForm('Application/JSON; charset=utf-8')).toBe('application/json');
  });

  it('weighs quality values, specificity and order', () => {
    expect(textToImageForm('image/png;q=0.5, application/json')).toBe('application/json');
    expect(textToImageForm('*/*, image/png')).toBe('image/png');
    expect(textToImageForm('text/html, application/xhtml+xml, */*;q=0.8')).toBe('image/jpeg');
    expect(textToImageForm('image/png, application/json')).toBe('image/png');
    expect(textToImageForm('image/png;q=0, application/json;q=0.1')).toBe('application/json');
  });

  it('refuses a header that allows none of the forms', () => {
    expect(() => textToImageForm('text/html')).toThrow(/allows none of image\/jpeg, image\/png, application\/json/);
    expect(() => textToImageForm('image/png;q=0')).toThrow(/allows none/);
  });
});
