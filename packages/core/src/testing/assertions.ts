import { expect } from 'vitest';

/** What {@link expectRejected} hands back: the error's code, message and field. */
export interface RejectionDetails {
  readonly code: string;
  readonly message: string;
  readonly field?: string;
}

/**
 * Awaits `promise`, expects it to reject with a GatewayError of `code` (INVALID_ARGUMENT by default), and
 * returns the error so a test can check its message or field. Fails the test when the promise resolves.
 */
export async function expectRejected(promise: Promise<unknown>, code = 'INVALID_ARGUMENT'): Promise<RejectionDetails> {
  try {
    await promise;
  } catch (error) {
    expect(error).toMatchObject({ code });
    return error as RejectionDetails;
  }
  throw new Error(`expected a rejection with ${code}, but the call succeeded`);
}
