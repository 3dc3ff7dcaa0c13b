import { randomBytes } from 'node:crypto';

/** Prefixes of the ids Berth mints: responses, messages, function calls and their outputs, reasoning. */
export type IdPrefix = 'resp' | 'msg' | 'fc' | 'fco' | 'rs';

/** `<prefix>_<32 lowercase hex>`: 128 random bits, as the reference API's ids. */
export function newResponsesId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

