import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Pins a process (all its threads) to one CPU with `taskset`, so the load generator and the server under
 * test do not trade cores mid-run: on a 2-vCPU machine the scheduler moving them about swings a 3-second
 * round by ±30%. Returns false (and pins nothing) where `taskset` is missing, there are fewer than two
 * CPUs, or `BENCH_PIN=0`; the benchmark then runs unpinned and says so.
 */
export function pinToCpu(pid: number, cpu: number): boolean {
  if (process.env.BENCH_PIN === '0' || process.platform !== 'linux' || availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
