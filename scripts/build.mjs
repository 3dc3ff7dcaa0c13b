/**
 * `npm run build`: compiles every workspace that has a `tsconfig.build.json` to JavaScript and
 * declarations in its `dist/`, with `tsc --build` (incremental: an unchanged package is not compiled again).
 *
 * TypeScript project references are generated here from the package manifests rather than written by
 * hand: for each workspace a config in node_modules/.cache/berth-build/ extends the workspace's own
 * `tsconfig.build.json`, turns on `composite` and references the configs of the workspace packages it
 * depends on, so a new package folder or a new dependency between packages needs no edit anywhere else.
 * Extra arguments go to `tsc --build` (e.g. `npm run build -- --verbose`, `--clean`, `--force`).
 * Then each workspace with a `build:assets` script runs it (the console's Vite build, packages/console).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { root, workspaces } from './workspaces.mjs';

const cache = join(root, 'node_modules', '.cache', 'berth-build');
mkdirSync(cache, { recursive: true });

const built = workspaces().filter((workspace) => existsSync(join(workspace.dir, 'tsconfig.build.json')));
const configOf = (name) => join(cache, `${name.replace(/^@/, '').replace(/\//g, '__')}.json`);
const builtNames = new Set(built.map((workspace) => workspace.name));
for (const workspace of built) {
  const config = {
    extends: join(workspace.dir, 'tsconfig.build.json'),
    compilerOptions: { composite: true, tsBuildInfoFile: join(workspace.dir, 'dist', '.tsbuildinfo') },
    references: workspace.deps.filter((dep) => builtNames.has(dep)).map((dep) => ({ path: configOf(dep) })),
  };
  writeConfig(configOf(workspace.name), config);
}
const solution = join(cache, 'tsconfig.json');
writeConfig(solution, { files: [], references: built.map((workspace) => ({ path: configOf(workspace.name) })) });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '--build', solution, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);
for (const workspace of workspaces().filter((candidate) => candidate.manifest.scripts?.['build:assets'])) {
  const assets = spawnSync('npm', ['run', '-s', 'build:assets'], { stdio: 'inherit', cwd: workspace.dir });
  if (assets.status !== 0) process.exit(assets.status ?? 1);
}

/** Writes a config only when its text changed, so `tsc --build` sees unchanged configs as up to date. */
function writeConfig(file, config) {
  const text = `${JSON.stringify(config, null, 2)}\n`;
  let previous;
  try {
    previous = readFileSync(file, 'utf8');
  } catch {}
  if (previous !== text) writeFileSync(file, text);
}
