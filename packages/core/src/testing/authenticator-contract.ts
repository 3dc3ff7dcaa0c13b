import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../kernel/gateway.js';
import { systemContext, type Principal, type RequestContext, type Role } from '../kernel/request-context.js';
import { authenticatorToken } from '../kernel/tokens.js';
import type { Authenticator } from '../ports/authenticator.js';
import type { CoreServices } from '../services/core-services.js';
import { coreServicesToken } from '../services/tokens.js';
import type { ManualClock } from './test-gateway.js';

/** What an auth contract factory hands back: started gateways on one storage, and how to dispose of them. */
export interface AuthUnderTest {
  /**
   * Started gateways sharing one storage, each with the plugins under test. One is enough; with a second,
   * the cross-instance tests run too.
   */
  readonly instances: readonly Gateway[];
  /** The clock every instance was created with. */
  readonly clock: ManualClock;
  cleanup(): Promise<void>;
}

/** A credential issued by the authenticator's own means (an API key, a token). */
export interface IssuedCredential {
  readonly credential: string;
  /** Revokes it; absent when the authenticator has no revocation. */
  revoke?(): Promise<void>;
}

export interface AuthenticatorContractOptions {
  /** Issues a credential for the existing user `userName` through `via`. */
  issue(via: Gateway, userName: string): Promise<IssuedCredential>;
  /**
   * The documented bound (ms): how long an instance may keep honouring a principal changed through
   * another instance. The cross-instance tests advance the clock past it.
   */
  readonly staleBoundMs: number;
}

const system = systemContext('authenticator-contract');

let sequence = 0;

/**
 * Runs `factory` before the suite's tests and its cleanup after them (call inside a `describe`);
 * returns the accessor the tests use. Shared by the auth contract suites.
 */
export function useAuthUnderTest(factory: () => Promise<AuthUnderTest>, suite: string): () => AuthUnderTest {
  let underTest: AuthUnderTest | undefined;
  beforeAll(async () => {
    underTest = await factory();
  });
  afterAll(async () => {
    await underTest?.cleanup();
    underTest = undefined;
  });
  return () => {
    if (underTest === undefined) throw new Error(`${suite}: the factory has not produced gateways`);
    return underTest;
  };
}

/** A fresh account id per test, so tests share the gateways without seeing each other's users. */
export function freshContractAccount(prefix: string): string {
  sequence += 1;
  return `${prefix}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

function asPrincipal(principal: Principal): RequestContext {
  return { requestId: `contract-${Math.random().toString(36).slice(2)}`, principal };
}

/** What the transport does: the synchronous answer when there is one, else `authenticate`. */
async function authenticateLikeTransport(auth: Authenticator, credential: string): Promise<Principal | undefined> {
  return auth.authenticateCached?.(credential) ?? auth.authenticate(system, credential);
}

/**
 * The contract of an {@link Authenticator} installed with core's users service: credentials resolve to
 * their owner's current principal, and a change to the owner (role, email, deletion) or a revocation is
 * honoured at once on the instance that made it — also by the synchronous `authenticateCached` — and
 * within `staleBoundMs` on another instance sharing the storage.
 *
 * ```ts
 * describeAuthenticatorContract('my auth on memory', async () => ({ instances: [a, b], clock, cleanup }), {
 *   issue: async (gateway, userName) => ({ credential: await myIssue(gateway, userName) }),
 *   staleBoundMs: 1000,
 * });
 * ```
 * `factory` runs once for the suite; each test works in an account of its own. The clock only moves
 * forward.
 */
export function describeAuthenticatorContract(name: string, factory: () => Promise<AuthUnderTest>, options: AuthenticatorContractOptions): void {
  describe(`Authenticator contract: ${name}`, () => {
    const current = useAuthUnderTest(factory, 'authenticator contract');
    const instance = (index: number): Gateway => {
      const gateway = current().instances[index];
      if (gateway === undefined) throw new Error(`authenticator contract: no instance ${index}`);
      return gateway;
    };
    const auth = (index = 0): Authenticator => instance(index).resolve(authenticatorToken);
    const services = (index = 0): CoreServices => instance(index).resolve(coreServicesToken);

    /** A fresh account with an admin (so that the user under test can be demoted) and `role` user `u`. */
    async function userIn(role: Role): Promise<{ accountId: string; userName: string; issued: IssuedCredential }> {
      const accountId = freshContractAccount('auth-contract');
      await services().users.create(system, accountId, { role: 'admin', email: 'keeper@contract.test' }, 'keeper');
      const user = await services().users.create(system, accountId, { role, email: 'u@contract.test' }, 'u');
      const userName = String(user.name);
      return { accountId, userName, issued: await options.issue(instance(0), userName) };
    }

    const demote = (index: number, userName: string) =>
      services(index).users.update(system, userName, { name: userName, role: 'user' }, 'role');

    it('resolves a credential to its owner’s current principal', async () => {
      const { accountId, userName, issued } = await userIn('contributor');
      const principal = await auth().authenticate(system, issued.credential);
      expect(principal).toMatchObject({ userName, accountId, role: 'contributor', email: 'u@contract.test' });
    });

    it.each([
      ['an unknown credential', 'not-a-credential-0123456789'],
      ['an empty string', ''],
      ['a very long string', 'x'.repeat(10_000)],
    ])('refuses %s', async (_label, credential) => {
      expect(await auth().authenticate(system, credential)).toBeUndefined();
      expect(auth().authenticateCached?.(credential)).toBeUndefined();
    });

    it('answers synchronously, when it does, exactly what authenticate answers', async () => {
      const { issued } = await userIn('user');
      const principal = await auth().authenticate(system, issued.credential);
      const cached = auth().authenticateCached?.(issued.credential);
      if (cached !== undefined) expect(cached).toEqual(principal);
    });

    it('honours a role change at once on the instance that made it, even for a credential verified just before', async () => {
      const { userName, issued } = await userIn('admin');
      expect((await auth().authenticate(system, issued.credential))?.role).toBe('admin');
      await demote(0, userName);
      expect(auth().authenticateCached?.(issued.credential)?.role ?? 'user').toBe('user');
      expect((await auth().authenticate(system, issued.credential))?.role).toBe('user');
    });

    it('honours an email change at once', async () => {
      const { userName, issued } = await userIn('user');
      await auth().authenticate(system, issued.credential);
      await services().users.update(system, userName, { name: userName, email: 'new@contract.test' }, 'email');
      expect((await authenticateLikeTransport(auth(), issued.credential))?.email).toBe('new@contract.test');
    });

    it('refuses the credential of a deleted user at once, and never lets it act for a new user of the same id', async () => {
      const { accountId, userName, issued } = await userIn('user');
      await auth().authenticate(system, issued.credential);
      await services().users.delete(system, userName);
      expect(auth().authenticateCached?.(issued.credential)).toBeUndefined();
      expect(await auth().authenticate(system, issued.credential)).toBeUndefined();
      current().clock.advance(1000);
      await services().users.create(system, accountId, { role: 'admin', email: 'other@contract.test' }, 'u');
      expect(await authenticateLikeTransport(auth(), issued.credential)).toBeUndefined();
    });

    it('refuses a revoked credential at once', async () => {
      const { issued } = await userIn('user');
      if (issued.revoke === undefined) return;
      expect(await auth().authenticate(system, issued.credential)).toBeDefined();
      await issued.revoke();
      expect(auth().authenticateCached?.(issued.credential)).toBeUndefined();
      expect(await auth().authenticate(system, issued.credential)).toBeUndefined();
    });

    it('authorizes no admin action that starts after a racing demotion is acknowledged', async () => {
      const { accountId, userName, issued } = await userIn('admin');
      await auth().authenticate(system, issued.credential);
      let acknowledged = false;
      const lateSuccesses: string[] = [];
      let late = 0;
      const attacker = async (worker: number): Promise<void> => {
        for (let i = 0; late < 40; i += 1) {
          const startedLate = acknowledged;
          if (startedLate) late += 1;
          const principal = await authenticateLikeTransport(auth(), issued.credential);
          if (principal === undefined) continue;
          try {
            await services().users.create(asPrincipal(principal), accountId, { role: 'admin', email: `w${worker}-${i}@contract.test` }, `w${worker}-${i}`);
            if (startedLate) lateSuccesses.push(`w${worker}-${i}`);
          } catch (error) {
            expect(error).toMatchObject({ code: 'PERMISSION_DENIED' });
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      const demotion = (async () => {
        await new Promise((resolve) => setImmediate(resolve));
        await demote(0, userName);
        acknowledged = true;
      })();
      await Promise.all([attacker(1), attacker(2), demotion]);
      expect(lateSuccesses).toEqual([]);
    });

    describe('on another instance sharing the storage', () => {
      const skip = (): boolean => current().instances.length < 2;

      it('stops honouring a role changed elsewhere within the documented bound', async () => {
        if (skip()) return;
        const { userName, issued } = await userIn('admin');
        expect((await auth(1).authenticate(system, issued.credential))?.role).toBe('admin');
        await demote(0, userName);
        current().clock.advance(options.staleBoundMs + 1);
        expect((await authenticateLikeTransport(auth(1), issued.credential))?.role).toBe('user');
      });

      it('stops honouring a user deleted elsewhere within the documented bound', async () => {
        if (skip()) return;
        const { userName, issued } = await userIn('user');
        expect(await auth(1).authenticate(system, issued.credential)).toBeDefined();
        await services(0).users.delete(system, userName);
        current().clock.advance(options.staleBoundMs + 1);
        expect(await authenticateLikeTransport(auth(1), issued.credential)).toBeUndefined();
      });

      it('stops honouring a credential revoked elsewhere within the documented bound', async () => {
        if (skip()) return;
        const { issued } = await userIn('user');
        if (issued.revoke === undefined) return;
        expect(await auth(1).authenticate(system, issued.credential)).toBeDefined();
        await issued.revoke();
        current().clock.advance(options.staleBoundMs + 1);
        expect(await authenticateLikeTransport(auth(1), issued.credential)).toBeUndefined();
      });
    });
  });
}
