import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { unauthenticated, type Authenticator, type Principal } from '@berth/core';

/** The request property holding the caller's principal (a symbol: nothing visible outside Berth's scope). */
const principalKey = Symbol('berth.principal');

interface AuthenticatedRequest {
  [principalKey]: Principal | null;
}

const bearerPattern = /^Bearer\s+\S+\s*$/i;

/** The credential of `Authorization: Bearer <credential>` (checked with `test` and sliced: no match array per request). */
function bearerToken(header: string | undefined): string | undefined {
  if (!header || !bearerPattern.test(header)) return undefined;
  return header.slice(6).trim();
}

/** The `onRequest` hook that authenticates, and the accessor of its result. */
export interface BearerAuthentication {
  /**
   * Checks the bearer credential before Fastify reads the body, so a stranger's body is never parsed.
   * A key the authenticator knows without I/O is checked synchronously (no promise per request).
   */
  readonly onRequest: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
  /** The principal `onRequest` established; only valid on routes that run the hook. */
  principalOf(request: FastifyRequest): Principal;
}

/** Decorates the requests of `app`'s scope with a principal slot and answers the hook that fills it. */
export function bearerAuthentication(app: FastifyInstance, authenticator: Authenticator): BearerAuthentication {
  app.decorateRequest(principalKey as unknown as string, null);
  const missing = () => unauthenticated('missing bearer credential: send Authorization: Bearer <API key>');
  return {
    onRequest: (request, _reply, done) => {
      const token = bearerToken(request.headers.authorization);
      if (!token) return done(missing());
      let known: Principal | undefined;
      try {
        known = authenticator.authenticateCached?.(token);
      } catch (error) {
        return done(error as Error);
      }
      if (known !== undefined) {
        (request as unknown as AuthenticatedRequest)[principalKey] = known;
        return done();
      }
      authenticator.authenticate({ requestId: request.id }, token).then(
        (principal) => {
          if (!principal) return done(unauthenticated('invalid or expired API key'));
          (request as unknown as AuthenticatedRequest)[principalKey] = principal;
          done();
        },
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    },
    principalOf: (request) => {
      const principal = (request as unknown as AuthenticatedRequest)[principalKey];
      if (!principal) throw unauthenticated('the request was not authenticated');
      return principal;
    },
  };
}
