import { describe, expect, it } from 'vitest';
import { responseToolProvidersToken } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { buildGateway } from './build-gateway.js';
import { readSettings } from './gateway-config.js';

describe('buildGateway', () => {
  it('offers MCP tools (types mcp and sse) to the Responses API', () => {
    const gateway = buildGateway(readSettings({ LOG_LEVEL: 'error' }), memoryStorage());
    expect(gateway.resolveAll(responseToolProvidersToken).map((provider) => provider.types)).toEqual([['mcp', 'sse']]);
  });
});
