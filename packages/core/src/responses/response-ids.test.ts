import { describe, expect, it } from 'vitest';
import { newResponsesId } from './response-ids.js';

describe('newResponsesId', () => {
  it('mints <prefix>_<32 hex> ids that never repeat, across several blocks of entropy', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => newResponsesId(i % 2 === 0 ? 'resp' : 'msg'));
    for (const [i, id] of ids.entries()) expect(id).toMatch(i % 2 === 0 ? /^resp_[0-9a-f]{32}$/ : /^msg_[0-9a-f]{32}$/);
    expect(new Set(ids.map((id) => id.slice(id.indexOf('_') + 1))).size).toBe(ids.length);
  });
});
