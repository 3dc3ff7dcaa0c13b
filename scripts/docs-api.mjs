/**
 * `npm run docs:api` (run by CI after the tests): the library API reference, from the TSDoc of every
 * publishable package, as static HTML pages in `docs-api/` (git-ignored) with TypeDoc.
 *
 * The entry points are the public entries of the packages' exports maps (their `@berth/source`
 * conditions: `@berth/core`, `@berth/core/testing`, ...), so a new package or subpath export is documented
 * without an edit here; each module is named after its import specifier. Options are in typedoc.json
 * (tsconfig.docs.json: the packages' sources without tests); warnings are errors, broken `{@link}`s included.
 */
import { join } from 'node:path';
import { Application, Converter, ReflectionKind, TypeDocReader } from 'typedoc';
import { publishableWorkspaces, root } from './workspaces.mjs';

/** Source file → import specifier, from the exports maps. */
const entries = new Map();
for (const workspace of publishableWorkspaces()) {
  for (const [key, target] of Object.entries(workspace.manifest.exports ?? {})) {
    const source = target !== null && typeof target === 'object' ? target['@berth/source'] : undefined;
    if (typeof source === 'string') entries.set(join(workspace.dir, source), workspace.name + key.slice(1));
  }
}

process.chdir(root);
const app = await Application.bootstrapWithPlugins({ entryPoints: [...entries.keys()] }, [new TypeDocReader()]);
app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
  if (!reflection.kindOf(ReflectionKind.Module)) return;
  const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName;
  const specifier = file === undefined ? undefined : entries.get(file);
  if (specifier !== undefined) reflection.name = specifier;
});
/** Stops on errors, and on warnings under `treatWarningsAsErrors` (typedoc.json). */
const stopOnProblems = (stage) => {
  const warnings = app.options.getValue('treatWarningsAsErrors') && app.logger.hasWarnings();
  if (!app.logger.hasErrors() && !warnings) return;
  console.error(`docs:api: failed at ${stage} (warnings are errors: fix the TSDoc named above)`);
  process.exit(1);
};
const project = await app.convert();
if (project === undefined) process.exit(1);
stopOnProblems('conversion');
app.validate(project);
stopOnProblems('validation');
await app.generateDocs(project, app.options.getValue('out'));
stopOnProblems('rendering');
console.log(`docs:api: ${entries.size} entry points documented in ${app.options.getValue('out')}`);
