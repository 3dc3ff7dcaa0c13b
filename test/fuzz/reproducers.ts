import type { Fixtures, FuzzRequest } from './arbitraries.js';

/** One hostile input of issue 9 and the status the gateway must answer it with. */
export interface Reproducer {
  readonly defect: string;
  readonly request: FuzzRequest;
  readonly status: number;
}

const json = (value: unknown) => JSON.stringify(value);

/** The reproduced hostile inputs, against the fuzz fixtures. Bodies create nothing when answered as expected. */
export function reproducers(fixtures: Fixtures): Reproducer[] {
  const v1 = `/v1/accounts/${fixtures.account}`;
  const model = (id: string) => `accounts/${fixtures.account}/models/${id}`;
  const base = (overrides: Record<string, unknown>, details: Record<string, unknown> = {}) => ({
    kind: 'HUB_BASE_MODEL',
    baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'], modelType: 'llama', ...details },
    ...overrides,
  });
  const addon = (baseModel: string) => ({ kind: 'HUB_PEFT_ADDON', peftDetails: { baseModel, r: 8, targetModules: ['q_proj'] } });
  const modelsToken = fixtures.pageTokens[0] ?? 'missing-token';
  const list: Array<[string, FuzzRequest, number]> = [
    ['#4 NUL in a string field', { method: 'POST', url: `${v1}/models`, auth: 'admin', body: json({ modelId: 'r4a', model: base({ displayName: 'a\u0000b' }) }) }, 400],
    ['#4 NUL in a nested field', { method: 'POST', url: `${v1}/models`, auth: 'admin', body: json({ modelId: 'r4b', model: base({}, { modelType: '\u0000' }) }) }, 400],
    ['#4 NUL in a filter value', { method: 'GET', url: `${v1}/models?filter=${encodeURIComponent('display_name = "\u0000"')}`, auth: 'admin' }, 400],
    ['#4 NUL in an id', { method: 'POST', url: `${v1}/users?userId=%00`, auth: 'admin', body: json({ role: 'user' }) }, 400],
    ['#6 a /models page token on /users', { method: 'GET', url: `${v1}/users?pageSize=1&pageToken=${modelsToken}`, auth: 'admin' }, 400],
    ['#6 a /models page token on /datasets', { method: 'GET', url: `${v1}/datasets?pageSize=1&pageToken=${modelsToken}`, auth: 'admin' }, 400],
    ['#6 a page token of another account', { method: 'GET', url: `/v1/accounts/other/models?pageSize=1&pageToken=${modelsToken}`, auth: 'other' }, 400],
    ['#7 a PEFT add-on on another account\'s model', { method: 'POST', url: `${v1}/models`, auth: 'admin', body: json({ modelId: 'r7a', model: addon('accounts/other/models/m') }) }, 403],
    ['#7 a PEFT add-on on a missing model', { method: 'POST', url: `${v1}/models`, auth: 'admin', body: json({ modelId: 'r7b', model: addon(model('nope')) }) }, 400],
    ['#8 :scale on another account with an empty body', { method: 'PATCH', url: `${v1}/deployments/d:scale`, auth: 'other' }, 403],
    ['#8 :scale on another account with {}', { method: 'PATCH', url: `${v1}/deployments/d:scale`, auth: 'other', body: '{}' }, 403],
    ['#10 unknown readMask sub-path', { method: 'GET', url: `${v1}/models/m?readMask=baseModelDetails.nope`, auth: 'admin' }, 400],
    ['#10 unknown updateMask sub-path', { method: 'PATCH', url: `${v1}/models/m?updateMask=baseModelDetails.nope`, auth: 'admin', body: '{}' }, 400],
    ['#9 a malformed URL', { method: 'GET', url: `${v1}/models/%`, auth: 'admin' }, 400],
    ['#9 an over-long path parameter', { method: 'GET', url: `${v1}/models/${'x'.repeat(600)}`, auth: 'admin' }, 400],
    ['#9 headers over the limit', { method: 'GET', url: `${v1}/models?filter=${'x'.repeat(20_000)}`, auth: 'admin' }, 400],
    ['#11 parameterCount above int64', { method: 'POST', url: `${v1}/models`, auth: 'admin', body: json({ modelId: 'r11', model: base({}, { parameterCount: '9999999999999999999' }) }) }, 400],
  ];
  return list.map(([defect, request, status]) => ({ defect, request, status }));
}
