import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Global setup of the e2e project: a directory for every gateway's log lines and the secrets the helpers
 * created (log-capture.ts). Teardown, after the whole suite: each secret must be absent from every log
 * line; a leak fails the run, naming the file and the start of the secret (never the whole of it).
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'berth-e2e-logs-'));
  process.env.BERTH_E2E_LOG_DIR = dir;
  return () => {
    const files = readdirSync(dir);
    const secrets = new Set(files.filter((f) => f.startsWith('secrets-')).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n')).filter((s) => s.length >= 8));
    const logs = files.filter((f) => f.startsWith('gateway-'));
    const leaks: string[] = [];
    let lines = 0;
    for (const file of logs) {
      const text = readFileSync(join(dir, file), 'utf8');
      lines += text.split('\n').length - 1;
      for (const secret of secrets) if (text.includes(secret)) leaks.push(`${file}: ${secret.slice(0, 4)}…`);
    }
    process.stdout.write(`e2e log scan: ${lines} log lines from ${logs.length} processes, ${secrets.size} secrets, ${leaks.length} leaks\n`);
    if (leaks.length > 0) {
      // Vitest reports a teardown error without failing the run by itself.
      process.exitCode = 1;
      throw new Error(`secrets found in the gateways' logs (kept in ${dir}):\n${leaks.join('\n')}`);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
