/**
 * Profiles: a base URL, an account and an API key saved once by `berth configure`, in a JSON file
 * readable only by its owner (0600). Flags override environment variables, which override the profile.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CliError, UsageError } from './errors.js';

export interface Profile {
  baseUrl?: string;
  account?: string;
  apiKey?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** The settings a command talks to the gateway with, once flags, environment and profile are merged. */
export interface Settings {
  baseUrl: string;
  account: string;
  apiKey: string | undefined;
  profile: string;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_BASE_URL = 'http://localhost:8080';
const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** `BERTH_CONFIG`, else `$XDG_CONFIG_HOME/berth/config.json`, else `~/.config/berth/config.json`. */
export function configPath(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  if (env.BERTH_CONFIG) return env.BERTH_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homeDir, '.config');
  return join(base, 'berth', 'config.json');
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new UsageError(`profile name "${name}" must be 1-64 letters, digits, '.', '_' or '-'`);
  return name;
}

export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not valid JSON; fix it or run berth configure again after removing it`);
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles;
  if (profiles === null || typeof profiles !== 'object' || Array.isArray(profiles)) return { profiles: {} };
  const clean: Record<string, Profile> = {};
  for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
    if (value === null || typeof value !== 'object') continue;
    const { baseUrl, account, apiKey } = value as Record<string, unknown>;
    clean[name] = {
      ...(typeof baseUrl === 'string' ? { baseUrl } : {}),
      ...(typeof account === 'string' ? { account } : {}),
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
    };
  }
  return { profiles: clean };
}

/** Writes the file through a temporary file created 0600 and renamed over it, in a directory made 0700. */
export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

export interface SettingFlags {
  profile?: string;
  baseUrl?: string;
  account?: string;
  apiKey?: string;
}

/** Flags, then `BERTH_BASE_URL` / `BERTH_ACCOUNT` / `BERTH_API_KEY`, then the profile (`--profile`, `BERTH_PROFILE`, `default`). */
export async function resolveSettings(flags: SettingFlags, env: Readonly<Record<string, string | undefined>>, path: string): Promise<Settings> {
  const profile = checkProfileName(flags.profile ?? env.BERTH_PROFILE ?? DEFAULT_PROFILE);
  const config = await readConfig(path);
  const saved = config.profiles[profile] ?? {};
  if (flags.profile !== undefined && config.profiles[profile] === undefined) {
    throw new UsageError(`no profile "${profile}" in ${path}; create it with: berth configure --profile ${profile}`);
  }
  const account = flags.account ?? env.BERTH_ACCOUNT ?? saved.account;
  if (account === undefined || account === '') {
    throw new UsageError('no account: run berth configure, or pass --account, or set BERTH_ACCOUNT');
  }
  return {
    baseUrl: checkBaseUrl(flags.baseUrl ?? env.BERTH_BASE_URL ?? saved.baseUrl ?? DEFAULT_BASE_URL),
    account,
    apiKey: flags.apiKey ?? env.BERTH_API_KEY ?? saved.apiKey,
    profile,
  };
}

export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`base URL "${text}" is not a URL (for example http://localhost:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`base URL "${text}" must start with http:// or https://`);
  return text.replace(/\/+$/, '');
}
