import { storageToken, systemContext, type Gateway, type GatewayLogger } from '@berth/core';

/** A readiness answer: 200 `{status: 'ready'}`, or 503 naming what is not healthy. */
export interface Readiness {
  readonly status: 200 | 503;
  readonly body: Record<string, unknown>;
}

/** An id no job has: reading it exercises the queue's store without touching a job. */
const probeJobId = '00000000-0000-0000-0000-000000000000';

/**
 * The gateway's readiness: it is running, its storage answers a key-value read and its durable queue
 * answers a job read (both bounded by `timeoutMs`). A failure answers 503 with each check's state,
 * `unhealthy` listing the failed ones, so a load balancer takes the instance out and an operator sees why.
 */
export async function readiness(gateway: Gateway, logger: GatewayLogger, requestId: string, timeoutMs = 2_000): Promise<Readiness> {
  if (gateway.state !== 'running') return { status: 503, body: { status: 'not ready', gateway: gateway.state, unhealthy: ['gateway'] } };
  const storage = gateway.resolve(storageToken);
  const ctx = systemContext('readyz');
  const probe = async (name: string, read: () => Promise<unknown>): Promise<[string, 'ok' | 'unreachable']> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([read(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)))]);
      return [name, 'ok'];
    } catch (error) {
      logger.warn({ requestId, check: name, err: error instanceof Error ? error.message : String(error) }, 'readiness check failed');
      return [name, 'unreachable'];
    } finally {
      clearTimeout(timer);
    }
  };
  const checks = await Promise.all([probe('storage', () => storage.kv.get(ctx, 'berth:readyz')), probe('queue', () => storage.queue.get(ctx, probeJobId))]);
  const unhealthy = checks.filter(([, state]) => state !== 'ok').map(([name]) => name);
  if (unhealthy.length === 0) return { status: 200, body: { status: 'ready' } };
  return { status: 503, body: { status: 'not ready', ...Object.fromEntries(checks), unhealthy } };
}
