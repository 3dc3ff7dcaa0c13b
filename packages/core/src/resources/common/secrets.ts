import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../../kernel/request-context.js';
import type { KeyValueStore } from '../../ports/storage.js';

const pageTokenSecretKey = 'berth:page-token-secret';

/**
 * Gateway secrets that must be equal on every instance sharing a store. The page-token HMAC key is
 * created once, kept in the key-value store, and read at start, so a token from one instance is
 * accepted by another.
 */
export class GatewaySecrets {
  private pageTokenSecretValue: string | undefined;

  constructor(private readonly configured?: string) {}

  async load(ctx: RequestContext, kv: KeyValueStore): Promise<void> {
    if (this.configured) {
      this.pageTokenSecretValue = this.configured;
      return;
    }
    await kv.set(ctx, pageTokenSecretKey, randomBytes(32).toString('base64url'), { ifAbsent: true });
    const stored = await kv.get(ctx, pageTokenSecretKey);
    if (typeof stored !== 'string') throw new Error('page token secret missing from storage after creation');
    this.pageTokenSecretValue = stored;
  }

  get pageTokenSecret(): string {
    if (this.pageTokenSecretValue === undefined) throw new Error('gateway secrets used before the gateway started');
    return this.pageTokenSecretValue;
  }
}
