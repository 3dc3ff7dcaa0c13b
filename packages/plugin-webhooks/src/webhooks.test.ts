import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Code, isGatewayError, resourceEnvironmentToken, unavailable, webhookOutboxToken, type Gateway, type RequestContext, type StorageTransaction } from '@berth/core';
import { ManualClock, MemoryStorage, principalContext } from '@berth/core/testing';
import { webhookDeliveryServiceToken } from './webhook-delivery-api.js';
import {
  driveToEnd, emit, readDelivery, sharedStorage, startReceiver, systemCtx, verifyReceived, waitFor, webhookGateway, type Receiver,
} from './test-fixtures.js';

const open: Array<{ close(): Promise<void> } | Gateway> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await ('stop' in item ? item.stop() : item.close());
});

async function receiver(...behaviours: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(behaviours);
  open.push(started);
  return started;
}

/** A started gateway on a memory store whose clock is `clock` (the queue's due times follow it). */
async function gatewayOnClock(clock: ManualClock, options: Parameters<typeof webhookGateway>[2] = {}): Promise<Gateway> {
  const storage = new MemoryStorage({ now: () => clock.now().getTime() });
  const gateway = webhookGateway(sharedStorage(storage), clock, options);
  await gateway.start();
  open.push(gateway);
  return gateway;
}

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const event = (url: string) => ({ accountId: 'acme', url, secret, type: 'image.ready', subject: 'req-1', data: { id: 'req-1', status: 'Ready' } });

describe('webhook delivery', () => {
  it('retries a receiver that fails in five ways, exactly on schedule, then delivers once, each attempt signed afresh', async () => {
    // The clock starts now (standardwebhooks refuses timestamps more than 5 min away) and moves only when told.
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock);
    const hook = await receiver('fail-500', 'hang', 'reset', 'retry-after-30', 'redirect', 'ok');
    const receipt = await emit(gateway, event(hook.url));
    const delivery = await driveToEnd(gateway, receipt.name, clock);

    expect(delivery.state).toBe('SUCCEEDED');
    expect(delivery.attemptCount).toBe(6);
    const attempts = delivery.attempts ?? [];
    expect(attempts.map((a) => a.statusCode)).toEqual([500, undefined, undefined, 429, 302, 204]);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(attempts[1]?.error).toMatch(/did not finish within 300 ms|timed out/);
    expect(attempts[2]?.error).toMatch(/failed/);
    expect(attempts[4]?.error).toMatch(/redirect \(302\), which is not followed/);
    expect(attempts[5]?.error).toBeUndefined();
    // The schedule: 1 s · 2^(n-1), jitter fixed at its middle (0.9 ×), and the 429's Retry-After (30 s) over its backoff.
    const times = attempts.map((a) => Date.parse(a.attemptTime ?? ''));
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([900, 1800, 3600, 30_000, 14_400]);
    expect(attempts.every((a) => /^\d+\.\d{3}s$/.test(a.duration ?? ''))).toBe(true);

    // The receiver got the webhook exactly six times, never the redirect's target, all with one id and body.
    expect(hook.hooks()).toHaveLength(6);
    expect(hook.received.filter((r) => r.path === '/elsewhere')).toEqual([]);
    expect(new Set(hook.hooks().map((r) => r.headers['webhook-id']))).toEqual(new Set([receipt.webhookId]));
    expect(new Set(hook.hooks().map((r) => r.body)).size).toBe(1);
    // Signed afresh: each attempt's timestamp is its own, and every signature verifies.
    expect(hook.hooks().map((r) => Number(r.headers['webhook-timestamp']))).toEqual(times.map((t) => Math.floor(t / 1000)));
    const verifier = new Webhook(secret);
    for (const received of hook.hooks()) {
      expect(verifyReceived(received, verifier)).toMatchObject({ type: 'image.ready', data: { id: 'req-1', status: 'Ready' } });
    }
    expect(hook.hooks()[0]?.headers['content-type']).toBe('application/json');

    // Nothing more is sent, however far the clock moves.
    clock.advance(86_400_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.hooks()).toHaveLength(6);
  });

  it('stops at 410 Gone after one attempt', async () => {
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock);
    const hook = await receiver('gone');
    const { name } = await emit(gateway, event(hook.url));
    const delivery = await driveToEnd(gateway, name, clock);
    expect(delivery).toMatchObject({ state: 'FAILED', attemptCount: 1, failureReason: expect.stringMatching(/410/) });
    expect(delivery.completeTime).toBeDefined();
    expect(delivery.nextAttemptTime).toBeUndefined();
    expect(hook.hooks()).toHaveLength(1);
  });

  it('fails after maxAttempts, and when the next attempt would start after maxAgeMs', async () => {
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock, { webhooks: { maxAttempts: 3 } });
    const hook = await receiver('fail-500');
    const exhausted = await driveToEnd(gateway, (await emit(gateway, event(hook.url))).name, clock);
    expect(exhausted).toMatchObject({ state: 'FAILED', attemptCount: 3, failureReason: expect.stringMatching(/gave up after 3 attempts/) });
    expect(hook.hooks()).toHaveLength(3);

    const clock2 = new ManualClock(new Date());
    const young = await gatewayOnClock(clock2, { webhooks: { maxAgeMs: 2_000 } });
    const hook2 = await receiver('fail-500');
    // Attempts at 0, 0.9 s and 2.7 s would be next: the third is past the 2 s age, so two attempts in all.
    const expired = await driveToEnd(young, (await emit(young, event(hook2.url))).name, clock2);
    expect(expired).toMatchObject({ state: 'FAILED', attemptCount: 2, failureReason: expect.stringMatching(/expired/) });
    expect(hook2.hooks()).toHaveLength(2);
  });

  it('sends unsigned webhooks without a secret, and signs plain secrets as UTF-8 bytes', async () => {
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock);
    const hook = await receiver('ok');
    const unsigned = await driveToEnd(gateway, (await emit(gateway, { ...event(hook.url), secret: undefined })).name, clock);
    expect(unsigned).toMatchObject({ state: 'SUCCEEDED', signed: false });
    expect(hook.hooks()[0]?.headers['webhook-signature']).toBeUndefined();
    const plain = 'a plain passphrase';
    await driveToEnd(gateway, (await emit(gateway, { ...event(hook.url), secret: plain })).name, clock);
    expect(verifyReceived(hook.hooks()[1]!, new Webhook(plain, { format: 'raw' }))).toMatchObject({ type: 'image.ready' });
  });

  it('writes nothing when the caller\'s transaction rolls back, and everything when it commits', async () => {
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock);
    const hook = await receiver('ok');
    const outbox = gateway.resolve(webhookOutboxToken);
    const storage = gateway.resolve(resourceEnvironmentToken).storage;
    let recorded = '';
    const failure = await storage
      .transaction(systemCtx, async (tx, txCtx) => {
        await tx.resources.create(txCtx, 'accounts/acme/results/r1', { name: 'accounts/acme/results/r1' });
        recorded = (await outbox.enqueue(txCtx, tx, event(hook.url))).name;
        throw new Error('the feature failed after recording the webhook');
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const missing = await readDelivery(gateway, recorded).catch((error: unknown) => error);
    expect(isGatewayError(missing) && missing.code).toBe(Code.NOT_FOUND);
    expect(await storage.resources.get(systemCtx, 'accounts/acme/results/r1')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hook.hooks()).toHaveLength(0);

    const committed = await storage.transaction(systemCtx, async (tx, txCtx) => {
      await tx.resources.create(txCtx, 'accounts/acme/results/r2', { name: 'accounts/acme/results/r2' });
      return outbox.enqueue(txCtx, tx, event(hook.url));
    });
    expect((await driveToEnd(gateway, committed.name, clock)).state).toBe('SUCCEEDED');
    expect(hook.hooks()).toHaveLength(1);
  });

  it('refuses at once a URL the egress policy refuses as written, and a bad secret or event', async () => {
    const gateway = await gatewayOnClock(new ManualClock(new Date()));
    for (const bad of [
      { ...event('http://169.254.169.254/latest/meta-data') }, { ...event('ftp://example.com/') }, { ...event('http://user:pw@example.com/') },
      { ...event(`https://example.com/${'a'.repeat(2100)}`) }, { ...event('') }, { ...event('https://example.com/'), secret: 'whsec_***' },
      { ...event('https://example.com/'), type: '' }, { ...event('https://example.com/'), accountId: 'Not An Account' },
    ]) {
      const error = await emit(gateway, bad).catch((e: unknown) => e);
      expect(isGatewayError(error) && error.code, JSON.stringify(bad).slice(0, 80)).toBe(Code.INVALID_ARGUMENT);
    }
  });

  it('fails at once, without connecting, when the URL resolves to an address the egress policy refuses', async () => {
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock, { allowLoopbackUrls: false });
    const hook = await receiver('ok');
    // `localhost` passes the check of the URL as written (a name), and is refused when it resolves (/etc/hosts).
    const { name } = await emit(gateway, event(hook.url.replace('127.0.0.1', 'localhost')));
    const delivery = await driveToEnd(gateway, name, clock);
    expect(delivery).toMatchObject({ state: 'FAILED', attemptCount: 1, failureReason: expect.stringMatching(/localhost resolves to a loopback address/) });
    expect(hook.received).toHaveLength(0);
  });

  it('sends again with the same webhook-id when the worker fails between sending and recording, and records one attempt', async () => {
    const clock = new ManualClock(new Date());
    const hook = await receiver('ok');
    /** A store whose transactions roll back (as if the connection dropped at commit) while `failing()` says so. */
    class CommitFails extends MemoryStorage {
      failing: () => boolean = () => false;
      override transaction<T>(ctx: RequestContext, work: (tx: StorageTransaction) => Promise<T>): Promise<T> {
        if (!this.failing()) return super.transaction(ctx, work);
        return super.transaction(ctx, async (tx) => {
          await work(tx);
          throw unavailable('the connection dropped before the commit');
        });
      }
    }
    const storage = new CommitFails({ now: () => clock.now().getTime() });
    // The worker's first commit (after the receiver got attempt 1) is lost.
    storage.failing = () => hook.hooks().length === 1;
    const gateway = webhookGateway(sharedStorage(storage), clock);
    await gateway.start();
    open.push(gateway);
    const { name, webhookId } = await emit(gateway, event(hook.url));
    // The queue retries the job after its own backoff: move the clock until the delivery is recorded.
    await waitFor(async () => {
      clock.advance(2_000);
      return (await readDelivery(gateway, name)).state !== 'PENDING';
    }, 'the delivery after a lost commit');
    expect(hook.hooks().map((r) => r.headers['webhook-id'])).toEqual([webhookId, webhookId]);
    const delivery = await readDelivery(gateway, name);
    expect(delivery).toMatchObject({ state: 'SUCCEEDED', attemptCount: 1 });
    expect(delivery.attempts?.map((a) => a.statusCode)).toEqual([204]);
  });

  it('does not count an attempt the gateway cut short by stopping, and delivers it after the restart', async () => {
    const clock = new ManualClock(new Date());
    const storage = new MemoryStorage({ now: () => clock.now().getTime() });
    const hook = await receiver('hang', 'ok');
    const first = webhookGateway(sharedStorage(storage), clock, { webhooks: { attemptTimeoutMs: 20_000 } });
    await first.start();
    const { name, webhookId } = await emit(first, event(hook.url));
    await waitFor(() => hook.hooks().length === 1, 'the first attempt to reach the receiver');
    // Stopping closes the egress client: the hanging attempt ends (EGRESS_CLOSED), is not recorded, and its
    // job stays leased until the lease expires; the restarted gateway then runs it again.
    await first.stop();
    expect((await storage.resources.get(systemCtx, name))?.data).toMatchObject({ state: 'PENDING', attemptCount: 0 });
    const second = webhookGateway(sharedStorage(storage), clock);
    await second.start();
    open.push(second);
    await waitFor(async () => {
      clock.advance(5_000);
      return (await readDelivery(second, name)).state !== 'PENDING';
    }, 'the delivery after the restart');
    const delivery = await readDelivery(second, name);
    expect(delivery).toMatchObject({ state: 'SUCCEEDED', attemptCount: 1, webhookId });
    expect(hook.hooks()).toHaveLength(2);
  });

  it('delivers after a restart between the result and the delivery (shared memory store)', async () => {
    const clock = new ManualClock(new Date());
    const storage = new MemoryStorage({ now: () => clock.now().getTime() });
    const hook = await receiver('ok');
    // The first gateway records the result and its webhook, then stops before any worker ran.
    const first = webhookGateway(sharedStorage(storage), clock, { workers: false });
    await first.start();
    const { name } = await emit(first, event(hook.url));
    await first.stop();
    expect(hook.hooks()).toHaveLength(0);
    const second = webhookGateway(sharedStorage(storage), clock);
    await second.start();
    open.push(second);
    await waitFor(async () => (await readDelivery(second, name)).state === 'SUCCEEDED', 'delivery after restart');
    expect(hook.hooks()).toHaveLength(1);
  });
});

describe('the delivery API', () => {
  it('gets and lists an account\'s deliveries with their attempts, never the secret, body or query string', async () => {
    const clock = new ManualClock(new Date());
    const gateway = await gatewayOnClock(clock);
    const hook = await receiver('fail-500', 'ok');
    const { name } = await emit(gateway, event(hook.url));
    await driveToEnd(gateway, name, clock);
    await emit(gateway, { ...event(hook.url), subject: 'req-2' });
    await emit(gateway, { ...event(hook.url), accountId: 'other' });
    const deliveries = gateway.resolve(webhookDeliveryServiceToken);
    const admin = principalContext('acme');
    const one = await deliveries.get(admin, name);
    expect(one).toMatchObject({ name, state: 'SUCCEEDED', attemptCount: 2, eventType: 'image.ready', subject: 'req-1', url: `${hook.origin}/hook`, signed: true });
    expect(JSON.stringify(one)).not.toContain('whsec_');
    expect(JSON.stringify(one)).not.toContain('receiver-secret');
    expect(Object.keys(one)).not.toContain('body');
    const page = await deliveries.list(admin, 'acme', { filter: 'state = PENDING' });
    expect(page.items.map((d) => d.subject)).toEqual(['req-2']);
    expect((await deliveries.list(admin, 'acme', {})).totalSize).toBe(2);
    const bySnakeCase = await deliveries.list(admin, 'acme', { filter: 'event_type = "image.ready" AND attempt_count = 2', orderBy: 'create_time' });
    expect(bySnakeCase.items.map((d) => d.name)).toEqual([name]);
    const denied = await deliveries.get(principalContext('other'), name).catch((e: unknown) => e);
    expect(isGatewayError(denied) && denied.code).toBe(Code.PERMISSION_DENIED);
    const inference = await deliveries.list(principalContext('acme', 'inference-user'), 'acme', {}).catch((e: unknown) => e);
    expect(isGatewayError(inference) && inference.code).toBe(Code.PERMISSION_DENIED);
  });
});
