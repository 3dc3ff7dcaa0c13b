/**
 * The workspace packages of this repository, read from the root package.json's `workspaces` globs
 * (`dir/*` form), each with its manifest, its folder and the workspace packages it depends on
 * (dependencies, peerDependencies and devDependencies), in dependency order. Used by the build
 * (scripts/build.mjs) and the package checks (scripts/check-packages.mjs), so a new package folder is
 * picked up without editing either.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** @typedef {{ name: string, dir: string, manifest: Record<string, any>, deps: string[] }} Workspace */

/** @returns {Workspace[]} every workspace package, dependencies before their dependents */
export function workspaces() {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const found = new Map();
  for (const pattern of rootManifest.workspaces) {
    if (!pattern.endsWith('/*')) throw new Error(`workspace pattern "${pattern}" is not of the form dir/*`);
    const parent = join(root, pattern.slice(0, -2));
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      const dir = join(parent, entry.name);
      if (!entry.isDirectory() || !existsSync(join(dir, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      found.set(manifest.name, { name: manifest.name, dir, manifest, deps: [] });
    }
  }
  for (const workspace of found.values()) {
    const { dependencies = {}, peerDependencies = {}, devDependencies = {} } = workspace.manifest;
    const names = new Set([...Object.keys(dependencies), ...Object.keys(peerDependencies), ...Object.keys(devDependencies)]);
    workspace.deps = [...names].filter((name) => found.has(name) && name !== workspace.name).sort();
  }
  return dependencyOrder(found);
}

/** Depth-first topological order; a cycle is an error naming its path. */
function dependencyOrder(found) {
  const ordered = [];
  const state = new Map();
  const visit = (name, path) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`workspace dependency cycle: ${[...path, name].join(' -> ')}`);
    state.set(name, 'visiting');
    for (const dep of found.get(name).deps) visit(dep, [...path, name]);
    state.set(name, 'done');
    ordered.push(found.get(name));
  };
  for (const name of [...found.keys()].sort()) visit(name, []);
  return ordered;
}

/** Workspaces published to the registry (not `private`). */
export function publishableWorkspaces() {
  return workspaces().filter((workspace) => workspace.manifest.private !== true);
}
