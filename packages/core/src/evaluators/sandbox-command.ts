import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/** How sandbox processes are started on this host (found once per runner). */
export interface SandboxHost {
  /** `unshare -rn` works: each sandbox process gets a network namespace with no interface. */
  readonly networkNamespace: boolean;
  /** The permission model's flag: `--permission` (Node 22.13+, 23.5+) or `--experimental-permission` (Node 20). */
  readonly permissionFlag: '--permission' | '--experimental-permission';
}

let detected: SandboxHost | undefined;

/** Whether a command runs to success within 5 s (used only to detect `unshare`). */
function succeeds(command: string, args: readonly string[]): boolean {
  try {
    const result = spawnSync(command, args, { stdio: 'ignore', timeout: 5_000, env: {} });
    return result.status === 0;
  } catch {
    return false;
  }
}

/** The host's sandbox abilities, detected once (a few ms). */
export function detectSandboxHost(): SandboxHost {
  if (detected === undefined) {
    detected = {
      networkNamespace: process.platform === 'linux' && succeeds('unshare', ['-rn', '--', process.execPath, '-e', '0']),
      permissionFlag: process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission',
    };
  }
  return detected;
}

export interface SandboxSpawnOptions {
  /** The program, run by this Node (`process.execPath`). */
  readonly script: string;
  /** The only directory the process may read (besides `script`) and write. */
  readonly scratch: string;
  /** V8 old-space limit, MiB. */
  readonly memoryMb: number;
  readonly host: SandboxHost;
}

/** The command line of a JavaScript sandbox process (see `sandbox-child-source.ts` for what runs inside). */
export function sandboxCommand(options: SandboxSpawnOptions): { command: string; args: string[] } {
  const node = [
    options.host.permissionFlag,
    `--allow-fs-read=${options.script}`,
    `--allow-fs-read=${options.scratch}`,
    `--allow-fs-write=${options.scratch}`,
    `--max-old-space-size=${options.memoryMb}`,
    '--disallow-code-generation-from-strings',
    '--no-warnings',
    '--no-addons',
    options.script,
  ];
  return options.host.networkNamespace
    ? { command: 'unshare', args: ['-rn', '--', process.execPath, ...node] }
    : { command: process.execPath, args: node };
}

/**
 * Starts a sandbox process: empty environment (no secret of the gateway's is inherited), working
 * directory the scratch directory, its own process group (so a kill reaches anything it started).
 */
export function spawnSandboxed(command: string, args: readonly string[], cwd: string): ChildProcess {
  return spawn(command, args, { cwd, env: {}, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
}

/** SIGKILL to the process and its group. */
export function killSandboxed(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
