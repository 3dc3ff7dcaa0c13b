/** `berth configure`: saves a profile from flags, or asks for what is missing when standard input is a terminal. */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { CommandContext } from './context.js';
import { DEFAULT_BASE_URL, DEFAULT_PROFILE, checkBaseUrl, checkProfileName, readConfig, writeConfig, type Profile } from './config.js';
import { CliError, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { renderTable } from './output.js';

/** `abcd…wxyz`: enough of a key to recognise it, not to use it. */
export function maskKey(key: string | undefined): string {
  if (key === undefined || key === '') return '';
  return key.length <= 8 ? '****' : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

/**
 * Asks each question on the terminal. Lines are queued as they arrive (input typed or pasted ahead of a
 * prompt is kept), and what is typed for a secret is not echoed.
 */
async function ask(io: CliIo, questions: Array<{ key: keyof Profile; label: string; current: string | undefined; secret?: boolean }>): Promise<Profile> {
  let muted = false;
  const echo = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) io.stdout.write(chunk.toString('utf8'));
      callback();
    },
  });
  const rl = createInterface({ input: io.stdin, output: echo, terminal: true });
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  rl.on('line', (line) => {
    if (waiting) waiting(line);
    else lines.push(line);
    waiting = undefined;
  });
  rl.on('close', () => {
    closed = true;
    waiting?.(undefined);
  });
  const nextLine = () => new Promise<string | undefined>((resolve) => {
    if (lines.length > 0) resolve(lines.shift());
    else if (closed) resolve(undefined);
    else waiting = resolve;
  });
  const answers: Profile = {};
  try {
    for (const q of questions) {
      const shown = q.secret ? maskKey(q.current) : q.current;
      io.stdout.write(`${q.label}${shown ? ` [${shown}]` : ''}: `);
      muted = q.secret === true;
      const line = await nextLine();
      muted = false;
      if (q.secret) io.stdout.write('\n');
      if (line === undefined) throw new CliError('configure: input ended before every question was answered');
      const value = line.trim() === '' ? q.current : line.trim();
      if (value !== undefined && value !== '') answers[q.key] = value;
    }
  } finally {
    rl.close();
  }
  return answers;
}

export function registerConfigure(program: Command, io: CliIo): void {
  program
    .command('configure')
    .description('save the base URL, account and API key of a profile (--profile, default "default"); asks for missing ones on a terminal')
    .option('--list', 'show the saved profiles (keys masked)')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const ctx = CommandContext.of(io, command);
      const path = ctx.configPath;
      const config = await readConfig(path);
      if (command.opts().list) {
        const rows = Object.entries(config.profiles).map(([name, p]) => [name, p.baseUrl ?? '', p.account ?? '', maskKey(p.apiKey)]);
        if (ctx.format === 'table') io.stdout.write(renderTable(['PROFILE', 'BASE URL', 'ACCOUNT', 'API KEY'], rows));
        else ctx.printResource(Object.fromEntries(rows.map(([name, baseUrl, account, apiKey]) => [name, { baseUrl, account, apiKey }])));
        return;
      }
      const name = checkProfileName(ctx.globals.profile ?? io.env.BERTH_PROFILE ?? DEFAULT_PROFILE);
      const current = config.profiles[name] ?? {};
      const given: Profile = {
        ...(ctx.globals.baseUrl !== undefined ? { baseUrl: checkBaseUrl(ctx.globals.baseUrl) } : {}),
        ...(ctx.globals.account !== undefined ? { account: ctx.globals.account } : {}),
        ...(ctx.globals.apiKey !== undefined ? { apiKey: ctx.globals.apiKey } : {}),
      };
      let profile: Profile = { ...current, ...given };
      const missing = (['baseUrl', 'account', 'apiKey'] as const).filter((k) => given[k] === undefined);
      if (missing.length > 0 && io.stdin.isTTY) {
        const labels = { baseUrl: 'Gateway base URL', account: 'Account id', apiKey: 'API key' } as const;
        const answers = await ask(io, missing.map((key) => ({ key, label: labels[key], current: key === 'baseUrl' ? profile.baseUrl ?? DEFAULT_BASE_URL : profile[key], secret: key === 'apiKey' })));
        if (answers.baseUrl !== undefined) answers.baseUrl = checkBaseUrl(answers.baseUrl);
        profile = { ...profile, ...answers };
      } else if (Object.keys(given).length === 0) {
        throw new UsageError('nothing to configure: pass --base-url, --account and --api-key (or run it on a terminal to be asked)');
      }
      config.profiles[name] = profile;
      await writeConfig(path, config);
      ctx.printMessage(`saved profile "${name}" to ${path}`, { profile: name, path, baseUrl: profile.baseUrl, account: profile.account, apiKey: maskKey(profile.apiKey) });
    });
}
