/** Why an exchange was aborted: its total time ran out, or one of the caller's signals aborted. */
export type AbortCause = { readonly by: 'timeout'; readonly afterMs: number } | { readonly by: 'caller'; readonly reason: unknown };

// setTimeout fires at once above this (a 32-bit signed delay).
const maxTimerMs = 2_147_483_647;

/**
 * The one signal an outbound exchange runs under: aborted by the first of its callers' signals or its
 * total time. Listeners and the timer are released by `dispose()`, so a long-lived caller signal (a
 * gateway-wide one) does not collect a listener per request. Remembers what aborted it, for the error.
 */
export class ExchangeSignal {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly listeners: Array<() => void> = [];
  private causeValue: AbortCause | undefined;

  constructor(signals: ReadonlyArray<AbortSignal | undefined>, totalMs: number) {
    for (const signal of signals) {
      if (signal === undefined) continue;
      if (signal.aborted) {
        this.abort({ by: 'caller', reason: signal.reason });
        break;
      }
      const onAbort = () => this.abort({ by: 'caller', reason: signal.reason });
      signal.addEventListener('abort', onAbort, { once: true });
      this.listeners.push(() => signal.removeEventListener('abort', onAbort));
    }
    if (this.controller.signal.aborted || !Number.isFinite(totalMs)) return;
    if (totalMs <= 0) {
      this.abort({ by: 'timeout', afterMs: 0 });
    } else {
      this.timer = setTimeout(() => this.abort({ by: 'timeout', afterMs: totalMs }), Math.min(totalMs, maxTimerMs));
      // An abandoned answer must not keep the process alive; a pending socket read does that on its own.
      this.timer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** What aborted the exchange, or undefined while it runs. */
  get cause(): AbortCause | undefined {
    return this.causeValue;
  }

  private abort(cause: AbortCause): void {
    if (this.causeValue !== undefined) return;
    this.causeValue = cause;
    this.dispose();
    this.controller.abort(cause.by === 'caller' ? cause.reason : new Error(`outbound exchange exceeded ${cause.afterMs} ms`));
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const remove of this.listeners.splice(0)) remove();
  }
}
