import type { Clock } from '../ports/clock.js';

interface DeploymentLoad {
  inFlight: number;
  waiting: number;
  /** Highest inFlight + waiting since the last sample. */
  peak: number;
  lastRequestAt: number | undefined;
}

/** What the autoscaler reads of a deployment's traffic. */
export interface LoadSample {
  /** Highest number of concurrent requests (served plus waiting) since the previous sample. */
  readonly peakConcurrency: number;
  readonly inFlight: number;
  readonly waiting: number;
  /** Epoch ms (gateway clock) of the last request start or end; undefined when none was seen. */
  readonly lastRequestAtMs: number | undefined;
}

/**
 * Live request counts per deployment and per replica, kept by the serving directory: the autoscaler's load
 * signal, least-outstanding routing, replica draining and the deletion guard read them. In memory: a
 * restarted gateway starts with no history.
 */
export class ServingLoad {
  private readonly deployments = new Map<string, DeploymentLoad>();
  private readonly replicas = new Map<string, number>();
  private readonly releaseListeners = new Set<(deployment: string, replicaId: string) => void>();

  constructor(private readonly clock: Clock) {}

  private entry(deployment: string): DeploymentLoad {
    let load = this.deployments.get(deployment);
    if (!load) {
      load = { inFlight: 0, waiting: 0, peak: 0, lastRequestAt: undefined };
      this.deployments.set(deployment, load);
    }
    return load;
  }

  private touch(load: DeploymentLoad): void {
    load.peak = Math.max(load.peak, load.inFlight + load.waiting);
    load.lastRequestAt = this.clock.now().getTime();
  }

  /** A request starts waiting for a replica; call the result (once) when it stops waiting. */
  beginWait(deployment: string): () => void {
    const load = this.entry(deployment);
    load.waiting += 1;
    this.touch(load);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      load.waiting -= 1;
    };
  }

  /** A request is sent to a replica; call the result (once) when the exchange ends. */
  beginRequest(deployment: string, replicaId: string): () => void {
    const load = this.entry(deployment);
    load.inFlight += 1;
    this.replicas.set(replicaId, (this.replicas.get(replicaId) ?? 0) + 1);
    this.touch(load);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      load.inFlight -= 1;
      const left = (this.replicas.get(replicaId) ?? 1) - 1;
      if (left > 0) this.replicas.set(replicaId, left);
      else this.replicas.delete(replicaId);
      load.lastRequestAt = this.clock.now().getTime();
      for (const listener of this.releaseListeners) listener(deployment, replicaId);
    };
  }

  /** Requests in flight on a replica. */
  outstanding(replicaId: string): number {
    return this.replicas.get(replicaId) ?? 0;
  }

  /** Requests in flight on, or waiting for, a deployment. */
  active(deployment: string): number {
    const load = this.deployments.get(deployment);
    return load ? load.inFlight + load.waiting : 0;
  }

  lastRequestAt(deployment: string): number | undefined {
    return this.deployments.get(deployment)?.lastRequestAt;
  }

  /** Reads the load and starts a new peak interval. */
  sample(deployment: string): LoadSample {
    const load = this.entry(deployment);
    const sample: LoadSample = {
      peakConcurrency: Math.max(load.peak, load.inFlight + load.waiting),
      inFlight: load.inFlight,
      waiting: load.waiting,
      lastRequestAtMs: load.lastRequestAt,
    };
    load.peak = load.inFlight + load.waiting;
    return sample;
  }

  /** Calls `listener` whenever a request ends; returns the function that removes it. */
  onRelease(listener: (deployment: string, replicaId: string) => void): () => void {
    this.releaseListeners.add(listener);
    return () => void this.releaseListeners.delete(listener);
  }
}
