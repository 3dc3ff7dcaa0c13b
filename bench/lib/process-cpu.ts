import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/**
 * CPU time (user + system, all threads) a process has used so far, in µs, from `/proc/<pid>/stat`;
 * undefined off Linux. Its resolution is one clock tick (10 ms at the usual 100 Hz): read it around
 * seconds of load, not single requests.
 */
export function processCpuMicros(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis):
    // state is field 3, utime field 14, stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
  } catch {
    return undefined;
  }
}
