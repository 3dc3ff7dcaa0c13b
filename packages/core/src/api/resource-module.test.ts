import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin } from '../kernel/plugin.js';
import { createToken } from '../kernel/token.js';
import { createTestGateway, memoryStorage, type TestGateway } from '../testing/index.js';
import { defineRouteModule, registerResourceModules, resourceRoutesToken } from './resource-module.js';
import { emptySchema } from './resource-routes.js';
import type { RouteSpec } from './route-spec.js';
import { routeRequest } from './route-request-fixture.js';

interface Greeter {
  greet(name: string): string;
}
const greeterToken = createToken<Greeter>('Greeter');

const greetingRoutes = (greeter: Greeter): RouteSpec[] => [
  {
    method: 'GET', path: '/v1/accounts/{account_id}/greetings/{greeting_id}', tag: 'Greetings', operationId: 'getGreeting', summary: 'Greet',
    response: emptySchema, handle: async (r) => ({ text: greeter.greet(r.params.greeting_id!) }),
  },
];

let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.stop();
  tg = undefined;
});

describe('defineRouteModule', () => {
  it("contributes a plugin's routes, built from the service another binding provides, after core's", async () => {
    const greetings = definePlugin({
      id: 'greetings',
      register(binder) {
        binder.bindValue(greeterToken, { greet: (name) => `hello ${name}` });
        registerResourceModules(binder, [defineRouteModule({ collection: 'greetings', service: greeterToken, routes: greetingRoutes })]);
      },
    });
    tg = await createTestGateway({ plugins: [memoryStorage(), greetings] });
    const routeLists = tg.gateway.resolveAll(resourceRoutesToken);
    const last = routeLists.at(-1)!;
    expect(last.map((r) => r.operationId)).toEqual(['getGreeting']);
    expect(routeLists.flat().map((r) => r.operationId)).toContain('createModel');
    expect(await last[0]!.handle(routeRequest({ params: { account_id: 'a', greeting_id: 'bob' } }))).toEqual({ text: 'hello bob' });
  });

  it('fails assembly, naming the token, when nothing provides the service', async () => {
    const orphan = definePlugin({
      id: 'orphan',
      register: (binder) => registerResourceModules(binder, [defineRouteModule({ collection: 'greetings', service: greeterToken, routes: greetingRoutes })]),
    });
    await expect(createTestGateway({ plugins: [memoryStorage(), orphan] })).rejects.toThrow(/Greeter/);
  });
});
