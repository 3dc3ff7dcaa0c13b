import { randomBytes, randomUUID } from 'node:crypto';

/** Produces ids for resources created without one, and request ids. */
export interface IdGenerator {
  /** A resource id: lowercase letters and digits, starting with a letter, at most 63 characters. */
  resourceId(): string;
  requestId(): string;
}

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

export const randomIdGenerator: IdGenerator = {
  resourceId() {
    const bytes = randomBytes(16);
    let id = alphabet[bytes[0]! % 26]!;
    for (let i = 1; i < 16; i += 1) id += alphabet[bytes[i]! % alphabet.length]!;
    return id;
  },
  requestId: () => randomUUID(),
};
