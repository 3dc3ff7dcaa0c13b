import { setMaxListeners } from 'node:events';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { RequestContext } from '../contracts/request-context.js';
import { invalidArgument, unavailable, type GatewayError } from '../errors/gateway-error.js';
import type { EgressFetch, EgressHttp, EgressLimits, EgressRequest, EgressResponse } from '../ports/egress-http.js';
import type { AddressPolicy } from './address-policy.js';
import { checkDeclaredLength, readCapped } from './egress-body.js';
import { toEgressError } from './egress-errors.js';
import { checkMethod, openExchange, type ExchangeRequest, type OpenedExchange } from './egress-exchange.js';
import { egressFetch } from './egress-fetch.js';
import { flattenHeaders, outgoingHeaders } from './egress-headers.js';
import { defaultEgressLimits, resolveEgressLimits, totalTimeMs, type ResolvedEgressLimits } from './egress-limits.js';
import { checkEgressUrl } from './egress-url.js';
import { checkingLookup, systemResolver, type EgressResolver } from './checking-lookup.js';
import { ExchangeSignal } from './exchange-signal.js';

export interface EgressHttpOptions {
  /** Allow 127.0.0.0/8, ::1 and `localhost` (tests, local development). Default false. */
  readonly allowLoopback?: boolean;
  /** Allow 10/8, 172.16/12, 192.168/16, 100.64/10 and fc00::/7 (in-cluster services). Default false. */
  readonly allowPrivate?: boolean;
  /** Resolves host names; default the operating system's resolver. */
  readonly resolver?: EgressResolver;
  /** Time to resolve, connect and (for https) finish the TLS handshake, ms. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Defaults of every call (each call may override them). */
  readonly limits?: EgressLimits;
}

/** An exchange opened by {@link GuardedEgressHttp.open}: the answer, the limits it runs under and its signal. */
export interface OpenedEgress extends OpenedExchange {
  readonly limits: ResolvedEgressLimits;
  readonly signal: ExchangeSignal;
}

class BufferedResponse implements EgressResponse {
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly url: string,
    readonly body: Uint8Array,
  ) {}

  text(): string {
    return new TextDecoder().decode(this.body);
  }

  json(): unknown {
    try {
      return JSON.parse(this.text());
    } catch (error) {
      throw unavailable(`outbound request to ${new URL(this.url).origin} answered with a body that is not JSON`, { reason: 'EGRESS_BAD_RESPONSE', cause: error });
    }
  }
}

/**
 * The guarded outbound HTTP client (see {@link EgressHttp}): undici underneath, one connection pool per
 * client whose connector resolves host names through a checking `lookup`, so every connection goes to an
 * address the policy allowed. Build it with {@link createEgressHttp}; the gateway binds one to
 * `egressHttpToken` from its settings (`allowLoopbackUrls`, `allowPrivateUrls`).
 */
export class GuardedEgressHttp implements EgressHttp {
  readonly policy: AddressPolicy;
  private readonly agent: Agent;
  private readonly defaults: ResolvedEgressLimits;
  private closed = false;
  /** Aborted when `close` gives up waiting: ends every exchange still running (undici's destroy alone does not). */
  private readonly closing = new AbortController();

  constructor(options: EgressHttpOptions = {}) {
    // Every exchange in flight listens to it (and lets go when it ends): as many as the gateway runs at once.
    setMaxListeners(0, this.closing.signal);
    this.policy = Object.freeze({ allowLoopback: options.allowLoopback === true, allowPrivate: options.allowPrivate === true });
    this.defaults = resolveEgressLimits(defaultEgressLimits, options.limits);
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    if (!Number.isFinite(connectTimeoutMs) || connectTimeoutMs <= 0) {
      throw invalidArgument(`egress connectTimeoutMs must be a positive number, not ${String(connectTimeoutMs)}`, { reason: 'EGRESS_LIMIT_INVALID' });
    }
    // An Agent of its own: proxies from the environment (the global dispatcher's business) are never used,
    // since a proxy would resolve names where they cannot be checked.
    const lookup = this.connectionLookup(checkingLookup(options.resolver ?? systemResolver, this.policy));
    this.agent = new Agent({ connect: { timeout: connectTimeoutMs, lookup } });
  }

  /**
   * The `lookup` every connection of this client uses: by default the checking lookup itself. A subclass
   * may wrap it, e.g. a test that routes one checked public address to a local server to stand in for
   * the internet; what the wrapper answers is connected to as is, so it must only narrow the answer.
   * Called once, from the constructor (before a subclass's own fields are set).
   */
  protected connectionLookup(checked: LookupFunction): LookupFunction {
    return checked;
  }

  /**
   * Opens an exchange: checks the request, sends it and follows redirects, under one signal made of the
   * callers' signals and the total time. The caller reads the body and disposes of the signal, or lets
   * the signal's timer end it. Used by `request` and by the fetch adapter.
   * @throws GatewayError (see {@link EgressHttp})
   */
  async open(
    ctx: RequestContext,
    url: string | URL,
    request: Omit<ExchangeRequest, 'headers'> & { readonly headers: Iterable<readonly [string, string]> },
    limits: ResolvedEgressLimits,
    signals: ReadonlyArray<AbortSignal | undefined>,
  ): Promise<OpenedEgress> {
    if (this.closed) throw closedError();
    const target = checkEgressUrl(url, this.policy);
    const exchange: ExchangeRequest = { ...request, method: checkMethod(request.method), headers: outgoingHeaders(request.headers) };
    const signal = new ExchangeSignal([this.closing.signal, ctx.signal, ...signals], totalTimeMs(ctx, limits));
    try {
      const opened = await openExchange(this.agent, this.policy, target, exchange, limits, signal.signal);
      try {
        if (exchange.method !== 'HEAD') checkDeclaredLength(opened.headers['content-length'], limits.maxResponseBytes, opened.url.origin);
      } catch (error) {
        opened.body.destroy();
        throw error;
      }
      return { ...opened, limits, signal };
    } catch (error) {
      signal.dispose();
      throw toEgressError(error, target.origin, signal.cause);
    }
  }

  async request(ctx: RequestContext, url: string | URL, request: EgressRequest = {}): Promise<EgressResponse> {
    const limits = resolveEgressLimits(this.defaults, request);
    const opened = await this.open(
      ctx,
      url,
      { method: request.method ?? 'GET', headers: Object.entries(request.headers ?? {}), body: request.body, redirect: request.redirect ?? 'follow' },
      limits,
      [],
    );
    try {
      const body = await readCapped(opened.body, limits.maxResponseBytes, opened.url.origin);
      return new BufferedResponse(opened.status, flattenHeaders(opened.headers), opened.url.href, body);
    } catch (error) {
      throw toEgressError(error, opened.url.origin, opened.signal.cause);
    } finally {
      opened.signal.dispose();
    }
  }

  createFetch(ctx: RequestContext, limits: EgressLimits = {}): EgressFetch {
    return egressFetch(this, ctx, resolveEgressLimits(this.defaults, limits));
  }

  /**
   * Stops new requests, lets running ones finish for up to `graceMs`, then ends what is left: those
   * exchanges fail with UNAVAILABLE (`EGRESS_CLOSED`), as later calls do.
   */
  async close(graceMs = 1_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    const outcome = await Promise.race([this.agent.close().then(() => 'closed' as const), grace]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.closing.abort(closedError());
      await this.agent.destroy();
    }
  }
}

function closedError(): GatewayError {
  return unavailable('outbound requests are closed: the gateway is stopping', { reason: 'EGRESS_CLOSED' });
}

/** A guarded outbound HTTP client; call `close()` when done with it. */
export function createEgressHttp(options: EgressHttpOptions = {}): GuardedEgressHttp {
  return new GuardedEgressHttp(options);
}
