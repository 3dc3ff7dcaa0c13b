import { describe, expect, it } from 'vitest';
import { gatewayNodeOptions, nodeOptionsOfScript, startNodeOptions } from './child-server.js';

describe('the Node options gateways start with', () => {
  it('are read from npm start and include the V8 heap floor', () => {
    expect(gatewayNodeOptions).toContain('--initial-old-space-size=96');
    expect(nodeOptionsOfScript('node  --a=1 --b dist/main.js')).toEqual(['--a=1', '--b']);
    expect(() => nodeOptionsOfScript('tsx src/main.ts')).toThrow(/not a node command/);
  });

  it('are the same in every template and example that starts a built gateway', () => {
    for (const path of ['templates/gateway/package.json', 'templates/gateway-postgres/package.json', 'examples/embed-express/package.json', 'examples/embed-node-http/package.json', 'examples/in-process/package.json']) {
      expect({ path, options: startNodeOptions(new URL(`../../${path}`, import.meta.url)) }).toEqual({ path, options: gatewayNodeOptions });
    }
  });
});
