import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemContext } from '../contracts/request-context.js';
import { isReplicaPhaseTransitionAllowed, type Provisioner, type ReplicaPhaseEvent, type ReplicaSpec } from '../ports/provisioner.js';

/** What the provisioner contract runs against: a fresh provisioner and a spec it can serve. */
export interface ProvisionerUnderTest {
  readonly provisioner: Provisioner;
  /** A replica spec the provisioner can bring to `ready`. */
  readonly spec: ReplicaSpec;
  /** Releases what the fixture holds besides the provisioner (servers, fakes). */
  cleanup?(): Promise<void>;
}

const ctx = systemContext('provisioner-contract');
const settleMs = 10_000;

/**
 * The contract every {@link Provisioner} passes (simulated, static, Kubernetes, third-party): start is
 * idempotent and returns at once, phases only move forward and reach `ready`, listing filters by deployment
 * and leaves stopped replicas out, stop is idempotent, malformed ids are INVALID_ARGUMENT, close is idempotent.
 * @param factory builds a fresh provisioner for each test.
 */
export function describeProvisionerContract(name: string, factory: () => Promise<ProvisionerUnderTest>): void {
  describe(`provisioner contract: ${name}`, () => {
    let subject: ProvisionerUnderTest;
    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(async () => {
      await subject.provisioner.close();
      await subject.cleanup?.();
    });
    const start = (replicaId: string, deployment = 'accounts/a/deployments/d') =>
      subject.provisioner.startReplica(ctx, { replicaId, deployment, spec: subject.spec });

    it('starts a replica whose phases only move forward until ready', async () => {
      const handle = await start('contract-1');
      expect(handle.replicaId).toBe('contract-1');
      expect(handle.deployment).toBe('accounts/a/deployments/d');
      const events: ReplicaPhaseEvent[] = [];
      const off = handle.onPhase((event) => events.push(event));
      const status = await handle.settled({ timeoutMs: settleMs });
      off();
      expect(status.phase).toBe('ready');
      expect(status.endpoint).toMatch(/^https?:\/\//);
      for (const event of events) expect(isReplicaPhaseTransitionAllowed(event.from, event.to)).toBe(true);
      expect(handle.status().phase).toBe('ready');
    });

    it('is idempotent on the replica id and lists replicas by deployment', async () => {
      const first = await start('contract-1');
      const again = await start('contract-1');
      expect(again.replicaId).toBe(first.replicaId);
      const listed = await subject.provisioner.listReplicas(ctx, { deployment: 'accounts/a/deployments/d' });
      expect(listed.map((r) => r.replicaId)).toEqual(['contract-1']);
      expect(await subject.provisioner.listReplicas(ctx, { deployment: 'accounts/a/deployments/other' })).toEqual([]);
      expect((await subject.provisioner.listReplicas(ctx)).map((r) => r.replicaId)).toContain('contract-1');
    });

    it('stops a replica (idempotently, also an unknown one) and no longer lists it', async () => {
      const handle = await start('contract-1');
      await handle.settled({ timeoutMs: settleMs });
      await subject.provisioner.stopReplica(ctx, 'contract-1');
      expect(handle.status().phase).toBe('stopped');
      await subject.provisioner.stopReplica(ctx, 'contract-1');
      await subject.provisioner.stopReplica(ctx, 'contract-unknown');
      expect((await subject.provisioner.listReplicas(ctx)).map((r) => r.replicaId)).not.toContain('contract-1');
    });

    it('refuses a malformed replica id with INVALID_ARGUMENT', async () => {
      for (const replicaId of ['', 'Upper', 'under_score', 'x'.repeat(41)]) {
        await expect(start(replicaId)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      }
    });

    it('closes idempotently', async () => {
      await start('contract-1');
      await subject.provisioner.close();
      await subject.provisioner.close();
    });
  });
}
