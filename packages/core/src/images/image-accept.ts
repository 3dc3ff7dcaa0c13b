import { invalidArgument } from '../errors/gateway-error.js';

/** The three forms of a text_to_image answer. */
export type TextToImageForm = 'image/jpeg' | 'image/png' | 'application/json';

const forms: readonly TextToImageForm[] = ['image/jpeg', 'image/png', 'application/json'];

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  readonly order: number;
}

function parseRanges(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  header.split(',').forEach((part, order) => {
    const [range = '', ...parameters] = part.split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) return;
    let q = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') q = Number(value);
    }
    if (Number.isFinite(q) && q > 0) ranges.push({ type, subtype, q: Math.min(q, 1), order });
  });
  // Highest quality first; among equals, the more specific range, then the header's order.
  const specificity = (r: MediaRange) => (r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2);
  return ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

/**
 * The form a text_to_image answer takes, from the `Accept` header: `image/png` or `image/jpeg` give
 * the image's bytes, `application/json` the JSON body; no header, `*\/*` or `image/*` give JPEG bytes
 * (what clients written for the reference API expect: they send no Accept and read the body as bytes).
 * @throws INVALID_ARGUMENT when the header allows none of the three.
 */
export function textToImageForm(accept: string | undefined): TextToImageForm {
  if (accept === undefined || accept.trim() === '') return 'image/jpeg';
  for (const range of parseRanges(accept)) {
    if (range.type === '*' || (range.type === 'image' && range.subtype === '*')) return 'image/jpeg';
    const exact = forms.find((form) => form === `${range.type}/${range.subtype}`);
    if (exact) return exact;
  }
  throw invalidArgument(`Accept "${accept}" allows none of image/jpeg, image/png, application/json`, { reason: 'NOT_ACCEPTABLE' });
}
