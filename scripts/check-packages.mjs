/**
 * `npm run check:packages` (run by CI): proves the packages work as published, outside this monorepo.
 *
 * 1. Builds every package (scripts/build.mjs) and packs each publishable one with `npm pack`.
 * 2. Checks each manifest (exports map with types, `files`, README, `@berth/core` as a peer dependency of
 *    every package built on it) and each tarball with publint (strict) and @arethetypeswrong/cli
 *    (profile esm-only: the packages are ES modules only).
 * 3. Scaffolds the gateway into a scratch directory outside the workspace (mktemp), points its
 *    `@berth/*` dependencies at the tarballs (third-party packages come from the npm registry), installs
 *    it, imports every export of every package, runs every package's command (`bin`, e.g. `berth
 *    --version`), runs the template's tests and starts it (`npm start`:
 *    its type check and build against the published declarations, then `node dist/main.js`) until
 *    `/healthz` answers (then `/docs` and `/console` with their assets). This catches a file left out of `files`
 *    or a workspace-only import.
 *    Every project here is written by the packed `create-berth` (`--template <name> --yes`), and checked
 *    to depend on published ranges only before its `@berth/*` dependencies are pointed at the tarballs.
 * 4. Does the same with templates/runtime-plugin (a third-party runtime: its tests run core's runtime
 *    contract suite from the published `@berth/core/testing`), then packs it as its author would publish
 *    it (its `prepack` builds it) and runs publint and arethetypeswrong on that tarball.
 * 5. Scaffolds embed-fastify, embed-express and embed-node-http (Berth under /berth in a Fastify, Express
 *    and plain node:http app: the example projects of docs/embedding.md), in-process (Berth's services
 *    with no HTTP) and gateway-postgres the same way and runs their tests; the embedding apps are started
 *    until `/berth/healthz`, `/berth/docs` and its assets answer, and in-process's `npm start` runs to its end.
 *
 * `--node24` imports every export under Node 24 too (`npx -p node@24`); `--keep` leaves the scratch
 * directory for inspection.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { publishableWorkspaces, root } from './workspaces.mjs';

const keep = process.argv.includes('--keep');
const problems = [];
const step = (text) => console.log(`\ncheck:packages: ${text}`);

const scratch = mkdtempSync(join(tmpdir(), 'berth-packages-'));
const tarballs = join(scratch, 'tarballs');
mkdirSync(tarballs);
const packages = publishableWorkspaces();
try {
  step('build');
  run(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root });

  step(`pack ${packages.length} packages into ${tarballs}`);
  for (const workspace of packages) {
    const out = run('npm', ['pack', '--json', '--pack-destination', tarballs], { cwd: workspace.dir, capture: true });
    workspace.tarball = join(tarballs, JSON.parse(out)[0].filename);
  }

  step('manifests, publint, arethetypeswrong');
  for (const workspace of packages) {
    for (const problem of manifestProblems(workspace)) problems.push(`${workspace.name}: ${problem}`);
    const pkg = workspace.manifest;
    await checkTarball(workspace.name, workspace.tarball, pkg);
  }
  if (problems.length > 0) fail();

  step('scaffold templates/gateway against the tarballs');
  const local = Object.fromEntries(packages.map((workspace) => [workspace.name, `file:${workspace.tarball}`]));
  // Every package from its tarball (those the template does not use too, so each is installed and imported).
  const app = scaffold('gateway', local, (manifest) => ({ ...manifest.dependencies, ...local }));
  const env = scratchEnv();
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app, env });

  step('import every export of every package');
  const specifiers = packages.flatMap((workspace) => Object.keys(workspace.manifest.exports).map((key) => workspace.name + key.slice(1)));
  const importAll = `for (const s of ${JSON.stringify(specifiers)}) { await import(s); console.log('  imported ' + s); }`;
  run(process.execPath, ['--input-type=module', '-e', importAll], { cwd: app, env });
  if (process.argv.includes('--node24')) {
    step('import every export of every package under Node 24');
    run('npx', ['-y', '-p', 'node@24', 'node', '--input-type=module', '-e', importAll], { cwd: app, env });
  }

  step('every package\'s command runs from the install');
  for (const workspace of packages) {
    const { bin, version } = workspace.manifest;
    const names = typeof bin === 'string' ? [workspace.name.replace(/^@[^/]+\//, '')] : Object.keys(bin ?? {});
    for (const name of names) {
      const printed = run(join(app, 'node_modules', '.bin', name), ['--version'], { cwd: app, env, capture: true }).trim();
      if (printed !== version) problems.push(`${workspace.name}: ${name} --version printed "${printed}", not ${version}`);
      console.log(`  ${name} --version: ${printed}`);
    }
  }
  if (problems.length > 0) fail();

  step('the template\'s tests');
  run('npm', ['test'], { cwd: app, env });

  step('npm start answers /healthz');
  await startAndProbe(app, env);

  step('scaffold templates/runtime-plugin against the tarballs: its tests (the runtime contract suite), then pack it');
  const plugin = scaffold('runtime-plugin', local, (manifest) => manifest.dependencies);
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: plugin, env });
  run('npm', ['test'], { cwd: plugin, env });
  // Packed as its author would publish it: with the template's own dependency ranges, not the tarballs.
  const published = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8'));
  published.dependencies = JSON.parse(readFileSync(join(root, 'templates', 'runtime-plugin', 'package.json'), 'utf8')).dependencies;
  delete published.overrides;
  writeFileSync(join(plugin, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: plugin, env, capture: true }));
  await checkTarball('the runtime-plugin template', join(scratch, packed.at(-1).filename));
  if (problems.length > 0) fail();

  // After its tests: where `npm start` must answer /healthz and /docs, or the line its run (which ends by itself) must print.
  const afterTests = {
    'embed-fastify': { mount: '/berth' },
    'embed-express': { mount: '/berth' },
    'embed-node-http': { mount: '/berth' },
    'in-process': { prints: 'READY on GPUX_H100_80GB: accounts/my-account/deployments/chat' },
    'gateway-postgres': {},
  };
  for (const [template, { mount, prints }] of Object.entries(afterTests)) {
    step(`scaffold ${template} against the tarballs: its tests${mount ? `, then npm start answers ${mount}/healthz, ${mount}/docs and ${mount}/console` : prints ? ', then npm start runs' : ''}`);
    const project = scaffold(template, local, (manifest) => manifest.dependencies);
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project, env });
    run('npm', ['test'], { cwd: project, env });
    if (mount) await startAndProbe(project, env, mount);
    if (prints) {
      const out = run('npm', ['start', '--silent'], { cwd: project, env, capture: true });
      if (!out.includes(prints)) problems.push(`${template}: npm start printed ${JSON.stringify(out)}, without "${prints}"`);
      console.log(out.trim().replace(/^/gm, '  '));
    }
  }
  if (problems.length > 0) fail();
  console.log('\ncheck:packages: every package packs, passes publint and arethetypeswrong, installs outside the workspace and serves; the runtime-plugin template passes its tests and packs; the embedding and in-process projects pass their tests and run');
} finally {
  if (keep) console.log(`scratch directory kept: ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}

/** publint (strict) and arethetypeswrong (ES modules only) on a tarball; findings go to `problems`. */
async function checkTarball(name, file, pkg) {
  const bytes = readFileSync(file);
  const tarball = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const { messages, pkg: packed } = await publint({ pack: { tarball }, strict: true });
  for (const message of messages) problems.push(`${name}: publint ${message.type}: ${formatMessage(message, pkg ?? packed)}`);
  const attw = join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  const types = spawnSync(process.execPath, [attw, file, '--profile', 'esm-only', '--format', 'ascii'], { encoding: 'utf8' });
  if (types.status !== 0) problems.push(`${name}: arethetypeswrong:\n${types.stdout}${types.stderr}`);
  console.log(`  ${name}: ${messages.length} publint message(s), arethetypeswrong ${types.status === 0 ? 'ok' : 'FAILED'}`);
}

/**
 * Scaffolds the project of template <name> into the scratch directory with the packed create-berth
 * (`npx --package <tarball> create-berth <dir> --template <name> --yes`), checks that it depends on published
 * ranges only, then points its `@berth/*` dependencies (those `dependencies` returns, and dev dependencies) at
 * the tarballs, and overrides so that packages depending on each other (e.g. @berth/runtime-kit under the
 * runtimes) get the tarballs too. Returns the project's directory.
 */
function scaffold(name, local, dependencies) {
  const dir = join(scratch, name);
  const creator = packages.find((workspace) => workspace.name === 'create-berth');
  run('npx', ['-y', '--package', creator.tarball, 'create-berth', dir, '--template', name, '--yes'], { cwd: scratch, env: scratchEnv() });
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
    for (const [dep, spec] of Object.entries(manifest[field] ?? {})) {
      if (/^(\*|workspace:|file:|link:)/.test(spec)) problems.push(`create-berth --template ${name}: ${field}.${dep} is "${spec}", not a published range`);
    }
  }
  if (problems.length > 0) fail();
  const pointed = (deps = {}) => Object.fromEntries(Object.entries(deps).map(([dep, spec]) => {
    if (!dep.startsWith('@berth/')) return [dep, spec];
    if (!local[dep]) throw new Error(`templates/${name} depends on ${dep}, which is not a publishable workspace package`);
    return [dep, local[dep]];
  }));
  manifest.dependencies = pointed(dependencies(manifest));
  manifest.devDependencies = pointed(manifest.devDependencies);
  manifest.overrides = local;
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/** What a published package's manifest must have. */
function manifestProblems(workspace) {
  const pkg = workspace.manifest;
  const found = [];
  if (!pkg.exports || typeof pkg.exports !== 'object') found.push('no exports map');
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    if (typeof target !== 'object' || !target.types || !target.default) found.push(`exports["${key}"] needs "types" and "default" conditions (built files)`);
    else if (!target.default.startsWith('./dist/')) found.push(`exports["${key}"].default should point into ./dist/`);
  }
  if (!Array.isArray(pkg.files) || !pkg.files.includes('dist')) found.push('"files" must list dist');
  if (!existsSync(join(workspace.dir, 'README.md'))) found.push('no README.md');
  if (!pkg.license) found.push('no license');
  const usesCore = workspace.name !== '@berth/core' && existsSync(join(workspace.dir, 'src')) && importsCore(workspace);
  if (usesCore && !pkg.peerDependencies?.['@berth/core']) found.push('imports @berth/core but does not list it in peerDependencies');
  if (pkg.dependencies?.['@berth/core']) found.push('@berth/core belongs in peerDependencies, not dependencies (one core per gateway)');
  return found;
}

function importsCore(workspace) {
  // Production sources only: tests and test fixtures may use core as a dev dependency.
  const testCode = ['--exclude=*.test.ts', '--exclude=*-fixture.ts', '--exclude=*-fixtures.ts', '--exclude-dir=testing'];
  const out = spawnSync('grep', ['-rlE', ...testCode, "from '@berth/core(/[a-z-]+)?'", join(workspace.dir, 'src')], { encoding: 'utf8' });
  return out.stdout.trim().length > 0;
}

/** The environment for npm in the scratch project: none of the `npm run` variables of this workspace. */
function scratchEnv() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  delete env.DATABASE_URL; // the embedded default
  env.LOG_LEVEL = 'warn';
  return env;
}

async function startAndProbe(app, env, mount = '') {
  const path = `${mount}/healthz`;
  const port = await freePort();
  const child = spawn('npm', ['start'], { cwd: app, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'inherit', detached: true });
  try {
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const answer = await get(`http://127.0.0.1:${port}${path}`);
      if (answer.status === 200) {
        console.log(`  GET ${path} → 200 ${answer.body}`);
        await probeDocs(`http://127.0.0.1:${port}`, `${mount}/docs`);
        await probeConsole(`http://127.0.0.1:${port}`, `${mount}/console/`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`no answer from ${path} within 180 s`);
  } finally {
    await new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      process.kill(-child.pid, 'SIGTERM');
      setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }, 5000).unref();
    });
  }
}

/** `/docs` and each asset it references answer 200: the reference renderer is found in the installed packages. */
function probeDocs(origin, docsPath) {
  return probePage(origin, docsPath, (body) => [...body.matchAll(/(?:src|href)="([^"]*\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]));
}

/** The web console's page and each asset it references answer 200: @berth/console shipped its built files. */
function probeConsole(origin, consolePath) {
  return probePage(origin, consolePath, (body) => [...body.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => `${consolePath}${m[1]}`));
}

/** A page and the assets `assetsOf` finds in it answer 200 (at least one asset). */
async function probePage(origin, pagePath, assetsOf) {
  const page = await get(`${origin}${pagePath}`);
  const assets = assetsOf(page.body);
  if (page.status !== 200 || assets.length === 0) throw new Error(`GET ${pagePath} answered ${page.status} with ${assets.length} assets`);
  for (const asset of assets) {
    const answer = await get(`${origin}${asset}`);
    if (answer.status !== 200) throw new Error(`GET ${asset} answered ${answer.status}`);
  }
  console.log(`  GET ${pagePath} → 200, its ${assets.length} assets → 200`);
}

function get(url) {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.once('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function run(command, args, { cwd, env = process.env, capture = false }) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit' });
  if (result.status !== 0) {
    problems.push(`${command} ${args.join(' ')} (in ${cwd}) exited with ${result.status ?? result.signal}`);
    fail();
  }
  return result.stdout;
}

function fail() {
  console.error(`\ncheck:packages: ${problems.length} problem(s):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  if (!keep) rmSync(scratch, { recursive: true, force: true });
  process.exit(1);
}
