import { createHmac, timingSafeEqual } from 'node:crypto';
import { permissionDenied } from '../../errors/index.js';
import type { Clock } from '../../ports/clock.js';
import type { GatewaySecrets } from './secrets.js';

export type SignedMethod = 'PUT' | 'GET';

/** The parameters a signed file URL carries, with the resource and file its path names. */
export interface SignedFileRequest {
  /** The resource whose file it is (`accounts/acme/datasets/d`, `accounts/acme/models/m`). */
  readonly resource: string;
  readonly filename: string;
  readonly method: SignedMethod;
  readonly expires: string;
  readonly signature: string;
}

/**
 * Signed file URLs: `/v1/{resource}/files/{filename}?method=…&expires=…&signature=…`, where the signature
 * is an HMAC (key derived from the gateway secret and `purpose`) over the method, resource, file name and
 * expiry, so a URL is bound to one method, one object and one expiry and cannot be altered. No bearer
 * key is needed: the signature is the credential. URLs are relative; the transport prefixes the origin.
 */
export class SignedFileUrls {
  constructor(
    private readonly secrets: GatewaySecrets,
    private readonly clock: Clock,
    /** Separates the keys of different file kinds (`berth:dataset-files`, `berth:model-files`). */
    private readonly purpose: string,
    private readonly ttlMs: number,
  ) {}

  private signingKey(): Buffer {
    return createHmac('sha256', this.secrets.pageTokenSecret).update(this.purpose).digest();
  }

  private sign(request: Omit<SignedFileRequest, 'signature'>): string {
    return createHmac('sha256', this.signingKey())
      .update(`${request.method}\n${request.resource}\n${request.filename}\n${request.expires}`)
      .digest('base64url');
  }

  /** A URL for `method` on one file of `resource`, valid for `ttlMs` (default: the configured time). */
  url(resource: string, filename: string, method: SignedMethod, ttlMs = this.ttlMs): string {
    const expires = String(Math.floor((this.clock.now().getTime() + ttlMs) / 1000));
    const signature = this.sign({ resource, filename, method, expires });
    const query = new URLSearchParams({ method, expires, signature });
    return `/v1/${resource}/files/${encodeURIComponent(filename)}?${query.toString()}`;
  }

  /** Checks a signed URL. PERMISSION_DENIED for a wrong, forged or expired signature. */
  verify(request: SignedFileRequest): void {
    const expected = Buffer.from(this.sign(request));
    const given = Buffer.from(request.signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw permissionDenied('the file URL signature does not match');
    const expires = Number(request.expires);
    if (!Number.isInteger(expires) || expires * 1000 < this.clock.now().getTime()) throw permissionDenied('the file URL has expired');
  }
}
