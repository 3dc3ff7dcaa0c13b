/**
 * `prepack` of create-berth (after its build): copies the repository's templates/* and examples/* into this package's
 * `templates/` (without node_modules and dist; each package.json as package.template.json) and writes
 * `templates/versions.json` with `^version` of every publishable workspace package, so the published scaffolder carries its templates and pins the packages
 * released with it. `--clean` (postpack) removes the copy again.
 */
import { cpSync, existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir, workspaceRanges } from '../dist/template-source.js';

const repo = join(packageDir, '..', '..');
const target = join(packageDir, 'templates');
rmSync(target, { recursive: true, force: true });
if (!process.argv.includes('--clean')) {
  // The example projects that are templates too (embed-express, embed-node-http, in-process) go in the same folder.
  for (const source of [join(repo, 'templates'), join(repo, 'examples')]) {
    for (const name of readdirSync(source)) {
      if (!existsSync(join(source, name, 'package.json'))) continue;
      if (existsSync(join(target, name))) throw new Error(`templates/${name} and examples/${name} would share one folder in the package`);
      cpSync(join(source, name), join(target, name), { recursive: true, filter: (path) => !/[/\\](node_modules|dist)$/.test(path) });
      // Not package.json: a nested manifest would be a package of its own (and its "exports" a publint error).
      renameSync(join(target, name, 'package.json'), join(target, name, 'package.template.json'));
    }
  }
  writeFileSync(join(target, 'versions.json'), `${JSON.stringify(workspaceRanges(repo), null, 2)}\n`);
}
