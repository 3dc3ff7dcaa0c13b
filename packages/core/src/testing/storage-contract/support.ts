import { expect } from 'vitest';
import type { Code } from '../../errors/code.js';
import type { RequestContext } from '../../kernel/request-context.js';
import type { Outbox, Storage } from '../../ports/storage.js';

/** What each group of contract tests receives: the storage under test (valid inside a test). */
export type StorageGetter = () => Storage;

export const ctx: RequestContext = { requestId: 'storage-contract' };

let counter = 0;

/** A name part unique within the run, valid as a resource id (lowercase letters, digits, hyphens). */
export function uid(prefix = 't'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}${counter}`;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Asserts that `promise` rejects with a GatewayError of `code`. */
export async function expectCode(promise: Promise<unknown>, code: Code): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}

/** Acknowledges everything `consumer` has not yet seen, so a test starts from a clean position. */
export async function drain(outbox: Outbox, consumer: string): Promise<void> {
  for (;;) {
    const events = await outbox.poll(ctx, consumer, 500);
    const last = events[events.length - 1];
    if (last === undefined) return;
    await outbox.ack(ctx, consumer, last.sequence);
  }
}
