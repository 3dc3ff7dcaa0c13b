import { describe, expect, it } from 'vitest';
import { roleAllows, type Permission, type Verb } from '@berth/core';
import { may, type Role } from '../app/src/permissions.js';

/** The console's copy of the permission matrix (it runs in the browser, without core) against core's own. */
describe("the console's permission matrix", () => {
  const roles: Role[] = ['admin', 'user', 'contributor', 'inference-user'];
  const verbs: Verb[] = ['get', 'list', 'create', 'update', 'delete', 'action'];
  const collections = ['models', 'deployments', 'deployedModels', 'deploymentShapes', 'datasets', 'batchInferenceJobs',
    'reinforcementFineTuningJobs', 'evaluators', 'users', 'apiKeys'];

  it("answers as core's roleAllows for every role, collection and verb, own API keys and others'", () => {
    for (const role of roles) {
      for (const collection of collections) {
        for (const verb of verbs) {
          for (const own of [false, true]) {
            const ctx = { requestId: 'parity', principal: { accountId: 'a', userName: 'accounts/a/users/me', role } };
            const target = { accountId: 'a', ownerUserName: own ? 'accounts/a/users/me' : 'accounts/a/users/other' };
            const core = roleAllows(role, `${collection}.${verb}` as Permission, ctx as Parameters<typeof roleAllows>[2], target);
            expect(may(role, collection, verb, own), `${role} ${collection}.${verb}${own ? ' (own)' : ''}`).toBe(core);
          }
        }
      }
    }
  });
});
