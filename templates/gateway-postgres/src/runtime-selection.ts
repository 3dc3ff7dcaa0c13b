import type { GatewayPlugin } from '@berth/core';
import { gpuxRuntime } from '@berth/plugin-runtime-gpux';
import { gpuyRuntime } from '@berth/plugin-runtime-gpuy';
import { SettingsError } from './postgres-settings.js';

/** The accelerator runtime plugins this template can install from `BERTH_RUNTIMES`. */
export const runtimeNames = ['gpux', 'gpuy'] as const;
export type RuntimeName = (typeof runtimeNames)[number];

/**
 * `BERTH_RUNTIMES`: a comma-separated list of `gpux`, `gpuy` (default both), or `none`. @throws SettingsError
 * for any other name.
 */
export function readRuntimeNames(env: NodeJS.ProcessEnv = process.env): RuntimeName[] {
  const raw = (env.BERTH_RUNTIMES ?? '').trim();
  if (raw === '') return [...runtimeNames];
  if (raw.toLowerCase() === 'none') return [];
  const names = raw.split(',').map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!(runtimeNames as readonly string[]).includes(name)) {
      throw new SettingsError(`BERTH_RUNTIMES "${raw}": "${name}" is not one of ${runtimeNames.join(', ')} (or "none" for no runtime)`);
    }
  }
  return [...new Set(names as RuntimeName[])];
}

/**
 * The runtime plugins for `names`, each on its simulated provisioner: replicas are reference engines on
 * loopback ports (deterministic text, `system_fingerprint: "berth-reference"`), so deployments become READY
 * and answer chat without accelerators. For real servers, pass `gpuxRuntime({ provisioner: { kind: 'static' |
 * 'kubernetes', … } })` to `runPostgresGateway` yourself instead (see the runtime plugins' READMEs).
 */
export function simulatedRuntimes(names: readonly RuntimeName[]): GatewayPlugin[] {
  return names.map((name) => (name === 'gpux' ? gpuxRuntime() : gpuyRuntime()));
}
