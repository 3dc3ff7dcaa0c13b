import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertTransition, canTransition, defineStateMachine, type StateMachine } from './state-machine.js';
import { GatewayError } from '../../errors/index.js';

const resourcesDir = join(dirname(fileURLToPath(import.meta.url)), '..');

function isStateMachine(value: unknown): value is StateMachine<string> {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<StateMachine<string>>;
  return typeof candidate.resource === 'string' && typeof candidate.initial === 'string' && typeof candidate.transitions === 'object';
}

/** Every `*-state-machine.ts` under resources/, and the machines each exports. */
async function discoverMachines(): Promise<Array<{ file: string; machine: StateMachine<string> }>> {
  const found: Array<{ file: string; machine: StateMachine<string> }> = [];
  for (const folder of readdirSync(resourcesDir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of readdirSync(join(resourcesDir, folder.name))) {
      if (!file.endsWith('-state-machine.ts')) continue;
      const module = (await import(pathToFileURL(join(resourcesDir, folder.name, file)).href)) as Record<string, unknown>;
      for (const value of Object.values(module)) if (isStateMachine(value)) found.push({ file: `${folder.name}/${file}`, machine: value });
    }
  }
  return found;
}

const machines = await discoverMachines();

describe('state machine discovery', () => {
  it('finds the machines of models and deployments (and any other resource that has one)', () => {
    const resources = machines.map(({ machine }) => machine.resource);
    expect(resources).toContain('model');
    expect(resources).toContain('deployment');
    for (const { file } of machines) expect(file).toMatch(/-state-machine\.ts$/);
  });
});

describe.each(machines.map(({ file, machine }) => [machine.resource, file, machine] as const))('%s (%s)', (_resource, _file, machine) => {
  const states = Object.keys(machine.transitions);

  it('has a table row for every state it names, and its initial state is a state', () => {
    expect(states).toContain(machine.initial);
    for (const targets of Object.values<readonly string[]>(machine.transitions)) {
      for (const target of targets) expect(states).toContain(target);
      expect(new Set(targets).size).toBe(targets.length);
    }
  });

  it('accepts every listed move and rejects every unlisted one with FAILED_PRECONDITION', () => {
    let accepted = 0;
    let rejected = 0;
    for (const from of states) {
      const listed = new Set<string>(machine.transitions[from] ?? []);
      for (const to of states) {
        if (listed.has(to)) {
          expect(canTransition(machine, from, to)).toBe(true);
          expect(() => assertTransition(machine, from, to)).not.toThrow();
          accepted += 1;
        } else {
          expect(canTransition(machine, from, to)).toBe(false);
          let caught: unknown;
          try {
            assertTransition(machine, from, to);
          } catch (error) {
            caught = error;
          }
          expect(caught, `${machine.resource}: ${from} → ${to} must be rejected`).toBeInstanceOf(GatewayError);
          expect(caught).toMatchObject({ code: 'FAILED_PRECONDITION', reason: 'INVALID_STATE_TRANSITION' });
          expect((caught as Error).message).toContain(`from ${from} to ${to}`);
          rejected += 1;
        }
      }
    }
    expect(accepted + rejected).toBe(states.length * states.length);
  });

  it('rejects moves from or to a state it does not know', () => {
    expect(() => assertTransition(machine, 'NOT_A_STATE', machine.initial)).toThrow(expect.objectContaining({ code: 'FAILED_PRECONDITION' }));
    expect(() => assertTransition(machine, machine.initial, 'NOT_A_STATE')).toThrow(expect.objectContaining({ code: 'FAILED_PRECONDITION' }));
  });
});

describe('defineStateMachine', () => {
  it('returns the table as given', () => {
    const machine = defineStateMachine<'A' | 'B'>({ resource: 'thing', initial: 'A', transitions: { A: ['B'], B: [] } });
    expect(canTransition(machine, 'A', 'B')).toBe(true);
    expect(canTransition(machine, 'B', 'A')).toBe(false);
    expect(canTransition(machine, 'A', 'A')).toBe(false);
  });
});
