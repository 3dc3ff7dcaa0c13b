import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/** CPUs of the machine (not of this process's affinity, which pinning narrows). */
const machineCpus = cpus().length;

/**
 * Pins a process (all its threads) to one CPU with `taskset`, so the load generator and the server under
 * test do not trade cores mid-run: on a 2-vCPU machine the scheduler moving them about swings a 3-second
 * round by ±30%. Returns undefined when pinned, else why not: `taskset` missing, fewer than two CPUs, or
 * `BENCH_PIN=0` (the benchmark then runs unpinned and says why).
 */
export function pinToCpu(pid: number, cpu: number): string | undefined {
  if (process.env.BENCH_PIN === '0') return 'BENCH_PIN=0';
  if (process.platform !== 'linux') return `no taskset on ${process.platform}`;
  if (machineCpus < 2) return 'fewer than two CPUs';
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `taskset failed for pid ${pid}: ${stderr || String(error)}`;
  }
}
