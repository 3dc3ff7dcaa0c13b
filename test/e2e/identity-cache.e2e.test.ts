import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { account, startHarness, userWithKey, type Harness } from './harness.js';

/**
 * Issue 9 defect 3: a demoted admin kept admin rights while its verified key stayed cached (~2 s), and
 * used them to create admin users. The identity cache is on here (the other e2e suites turn it off).
 */
let h: Harness;
const v1 = `/v1/accounts/${account}`;

beforeAll(async () => {
  h = await startHarness({ plugins: [memoryStorage(), apiKeyAuth({ cacheTtlMs: 60_000 })] });
});
afterAll(async () => h.close());

describe('a demotion raced against the demoted key’s admin calls', () => {
  it('no admin action started after the demotion is acknowledged succeeds', async () => {
    const key = await userWithKey(h, 'deputy', 'admin');
    // Warm the cache: the key is verified as an admin before the race starts.
    expect((await h.call('GET', `${v1}/users?pageSize=1`, { key })).status).toBe(200);

    let acknowledged = false;
    let created = 0;
    const afterAck: number[] = [];
    const beforeAck: number[] = [];
    const attacker = async (worker: number): Promise<void> => {
      for (let i = 0; afterAck.length < 60; i += 1) {
        const startedAfterAck = acknowledged;
        const r = await h.call('POST', `${v1}/users?userId=w${worker}-${i}`, { key, body: { role: 'admin', email: `w${worker}-${i}@acme.test` } });
        if (r.status === 200) created += 1;
        (startedAfterAck ? afterAck : beforeAck).push(r.status);
      }
    };
    const demote = async (): Promise<void> => {
      // Let the attackers get going first.
      while (beforeAck.length < 5) await new Promise((resolve) => setTimeout(resolve, 1));
      const r = await h.call('PATCH', `${v1}/users/deputy?updateMask=role`, { body: { name: `accounts/${account}/users/deputy`, role: 'user' } });
      expect(r.status).toBe(200);
      acknowledged = true;
    };
    await Promise.all([attacker(1), attacker(2), attacker(3), demote()]);

    expect(afterAck.filter((status) => status !== 403)).toEqual([]);
    expect(afterAck.length).toBeGreaterThanOrEqual(60);
    // The race was real: the key did act as an admin before the demotion.
    expect(created).toBeGreaterThan(0);
  });
});
