import { Code, GatewayError, invalidArgument } from '../errors/index.js';
import { type ReplicaSpec, isReplicaPhaseTransitionAllowed, terminalReplicaPhases, type ReplicaHandle, type ReplicaPhase, type ReplicaPhaseEvent, type ReplicaStatus } from '../ports/provisioner.js';

const replicaIdPattern = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;

/**
 * Checks a caller-chosen replica id.
 * @throws GatewayError INVALID_ARGUMENT (field `replicaId`).
 */
export function assertReplicaId(replicaId: string): void {
  if (typeof replicaId !== 'string' || !replicaIdPattern.test(replicaId)) {
    throw invalidArgument(
      `replicaId must be 1–40 lowercase letters, digits or hyphens, starting and ending with a letter or digit, got ${JSON.stringify(replicaId)}`,
      { field: 'replicaId' },
    );
  }
}

/**
 * A replica's phase state with listeners: the shared {@link ReplicaHandle} implementation provisioners use.
 * Illegal transitions (backwards, out of a terminal phase) are ignored, so racing updates cannot corrupt it.
 */
export class ReplicaTracker implements ReplicaHandle {
  private current: ReplicaStatus;
  private readonly listeners = new Set<(event: ReplicaPhaseEvent) => void>();

  constructor(
    readonly replicaId: string,
    readonly deployment: string,
    readonly spec: ReplicaSpec,
    initial: ReplicaPhase = 'pending_scheduling',
    private readonly now: () => number = Date.now,
  ) {
    this.current = { replicaId, deployment, phase: initial, since: now() };
  }

  status(): ReplicaStatus {
    return this.current;
  }

  get phase(): ReplicaPhase {
    return this.current.phase;
  }

  get terminal(): boolean {
    return terminalReplicaPhases.includes(this.current.phase);
  }

  /** Moves to `to` if allowed; returns whether it moved. */
  transition(to: ReplicaPhase, details: { endpoint?: string; message?: string } = {}): boolean {
    const from = this.current.phase;
    if (!isReplicaPhaseTransitionAllowed(from, to)) return false;
    const endpoint = to === 'ready' ? details.endpoint : undefined;
    this.current = {
      replicaId: this.replicaId,
      deployment: this.deployment,
      phase: to,
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(details.message !== undefined ? { message: details.message } : {}),
      since: this.now(),
    };
    const event: ReplicaPhaseEvent = { replicaId: this.replicaId, deployment: this.deployment, from, to, status: this.current };
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not stop the replica's lifecycle or other listeners.
      }
    }
    return true;
  }

  /** Updates the message without a phase change (e.g. what a pending replica waits for). */
  note(message: string): void {
    this.current = { ...this.current, message };
  }

  onPhase(listener: (event: ReplicaPhaseEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  settled(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ReplicaStatus> {
    const done = (s: ReplicaStatus) => s.phase === 'ready' || terminalReplicaPhases.includes(s.phase);
    if (done(this.current)) return Promise.resolve(this.current);
    return new Promise<ReplicaStatus>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        unsubscribe();
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        cleanup();
        reject(new GatewayError(Code.CANCELLED, `waiting for replica ${this.replicaId} was cancelled`));
      };
      const unsubscribe = this.onPhase((event) => {
        if (done(event.status)) {
          cleanup();
          resolve(event.status);
        }
      });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(
            new GatewayError(
              Code.DEADLINE_EXCEEDED,
              `replica ${this.replicaId} did not become ready within ${options.timeoutMs} ms (phase ${this.current.phase})`,
            ),
          );
        }, options.timeoutMs);
      }
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
