import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectManifest, packageNameOf, type Manifest } from './manifest.js';
import { scaffold, ScaffoldError } from './scaffold.js';
import { defaultTemplateSource, packageDir } from './template-source.js';
import { templateIds } from './templates.js';

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'create-berth-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

const readJson = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
const allDependencies = (manifest: Manifest) => ({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
const coreVersion = (readJson(join(packageDir, '..', 'core', 'package.json')) as { version: string }).version;

describe('scaffold', () => {
  for (const template of templateIds) {
    it(`writes the ${template} template with a README, its sources and a package.json on published ranges`, () => {
      const result = scaffold({ directory: join(scratch, 'My Project'), template });
      expect(result.name).toBe('my-project');
      expect(result.files).toEqual(expect.arrayContaining(['README.md', 'package.json', '.gitignore']));
      expect(result.files.some((file) => file.startsWith('src/') && file.endsWith('.test.ts'))).toBe(true);
      expect(result.files.some((file) => file.includes('node_modules') || file.startsWith('dist/'))).toBe(false);
      const manifest = readJson(join(result.directory, 'package.json'));
      expect(manifest.name).toBe('my-project');
      expect(manifest.version).toBe('0.1.0');
      expect(manifest.scripts?.test).toBe('vitest run');
      for (const [name, range] of Object.entries(allDependencies(manifest))) {
        expect(range, name).not.toMatch(/^(\*|workspace:|file:|link:)/);
        if (name.startsWith('@berth/')) expect(range, name).toMatch(/^\^\d+\.\d+\.\d+/);
      }
      expect(JSON.stringify(manifest)).not.toContain('@berth/source');
      const readme = readFileSync(join(result.directory, 'README.md'), 'utf8');
      expect(readme).toContain('# my-project');
      expect(readme).toContain('npm install && npm test');
      expect(readme.includes('npm install && npm start')).toBe(template !== 'runtime-plugin');
    });
  }

  it('pins the memory gateway on ^version of the workspace packages, never a workspace path', () => {
    const result = scaffold({ directory: join(scratch, 'gw'), template: 'gateway' });
    const text = readFileSync(join(result.directory, 'package.json'), 'utf8');
    expect(text).not.toMatch(/"(\*|workspace:[^"]*|file:[^"]*|\.\.?\/[^"]*)"/);
    const manifest = readJson(join(result.directory, 'package.json'));
    expect(manifest.dependencies?.['@berth/core']).toBe(`^${coreVersion}`);
    expect(manifest.private).toBe(true);
    expect(manifest.scripts?.start).toBe('node --initial-old-space-size=96 dist/main.js');
  });

  it('embeds the gateway in a Fastify app under /berth, with fastify as a dependency', () => {
    const result = scaffold({ directory: join(scratch, 'host'), template: 'embed-fastify' });
    const main = readFileSync(join(result.directory, 'src', 'main.ts'), 'utf8');
    expect(main).toContain("app.register(berth, { gateway, prefix: '/berth' })");
    expect(readJson(join(result.directory, 'package.json')).dependencies?.fastify).toMatch(/^\^5\./);
  });

  it('embeds the gateway in an Express app and in a node:http server from the example projects', () => {
    const express = scaffold({ directory: join(scratch, 'express-host'), template: 'embed-express' });
    expect(readFileSync(join(express.directory, 'src', 'app.ts'), 'utf8')).toContain('app.use(berth)');
    const manifest = readJson(join(express.directory, 'package.json'));
    expect(manifest).toMatchObject({ name: 'express-host', private: true });
    expect(manifest.dependencies?.express).toMatch(/^\^5\./);
    expect(manifest.dependencies?.['@berth/plugin-transport-fastify']).toBe(`^${coreVersion}`);
    const plain = scaffold({ directory: join(scratch, 'plain-host'), template: 'embed-node-http' });
    expect(readFileSync(join(plain.directory, 'src', 'app.ts'), 'utf8')).toContain('berth(req, res, () => yourApp(req, res))');
    expect(readFileSync(join(plain.directory, 'README.md'), 'utf8')).toContain('## About this template');
  });

  it('writes the in-process project, whose npm start runs without a server', () => {
    const result = scaffold({ directory: join(scratch, 'in-process'), template: 'in-process' });
    expect(result.files).toEqual(expect.arrayContaining(['src/main.ts', 'src/model-catalog.ts', 'src/model-catalog.test.ts']));
    expect(Object.keys(readJson(join(result.directory, 'package.json')).dependencies ?? {})).not.toContain('@berth/plugin-transport-fastify');
    expect(readFileSync(join(result.directory, 'README.md'), 'utf8')).toContain('npm install && npm start   # type-checks, builds and runs src/main.ts (no server)');
  });

  it('makes the runtime plugin publishable (not private) with its test tooling', () => {
    const manifest = readJson(join(scaffold({ directory: join(scratch, 'acme'), template: 'runtime-plugin', name: '@acme/berth-runtime' }).directory, 'package.json'));
    expect(manifest.name).toBe('@acme/berth-runtime');
    expect(manifest.private).toBeUndefined();
    expect(manifest.peerDependencies?.['@berth/core']).toBe(`^${coreVersion}`);
    expect(Object.keys(manifest.devDependencies ?? {})).toEqual(expect.arrayContaining(['vitest', 'typescript']));
  });

  it('refuses a non-empty directory unless force, and replaces same-named files with force', () => {
    const directory = join(scratch, 'taken');
    mkdirSync(directory);
    writeFileSync(join(directory, 'notes.txt'), 'mine');
    writeFileSync(join(directory, 'package.json'), '{"name":"old"}');
    expect(() => scaffold({ directory, template: 'gateway' })).toThrow(ScaffoldError);
    expect(existsSync(join(directory, 'src'))).toBe(false);
    scaffold({ directory, template: 'gateway', force: true });
    expect(readFileSync(join(directory, 'notes.txt'), 'utf8')).toBe('mine');
    expect(readJson(join(directory, 'package.json')).name).toBe('taken');
  });

  it('gives the production gateway runtime plugins, so it serves inference out of the box, and says so in its README', () => {
    const result = scaffold({ directory: join(scratch, 'prod'), template: 'gateway-postgres' });
    const manifest = readJson(join(result.directory, 'package.json'));
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(expect.arrayContaining(['@berth/plugin-runtime-gpux', '@berth/plugin-runtime-gpuy']));
    expect(result.files).toContain('src/runtime-selection.ts');
    const readme = readFileSync(join(result.directory, 'README.md'), 'utf8');
    expect(readme).toContain('`BERTH_RUNTIMES`');
    expect(readme).toContain('inference is off: no accelerator runtime plugin is installed');
  });

  it('scaffolds into an existing empty directory, and refuses a file', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expect(scaffold({ directory: empty, template: 'gateway-postgres' }).files).toContain('src/main.ts');
    const file = join(scratch, 'file');
    writeFileSync(file, '');
    expect(() => scaffold({ directory: file, template: 'gateway', force: true })).toThrow(/not a directory/);
  });
});

describe('scaffold from the packed layout', () => {
  it('reads package.template.json and the ranges of versions.json', () => {
    const dir = join(scratch, 'templates');
    mkdirSync(join(dir, 'gateway', 'src'), { recursive: true });
    writeFileSync(join(dir, 'gateway', 'package.template.json'), JSON.stringify({ name: '@berth/template-gateway', dependencies: { '@berth/core': '*' } }));
    writeFileSync(join(dir, 'gateway', 'src', 'main.ts'), 'export {};\n');
    const result = scaffold({ directory: join(scratch, 'out'), template: 'gateway', source: { dir, ranges: { '@berth/core': '^9.8.7' } } });
    expect(result.files).toEqual(['.gitignore', 'README.md', 'package.json', 'src/main.ts']);
    expect(readJson(join(result.directory, 'package.json')).dependencies).toEqual({ '@berth/core': '^9.8.7' });
  });
});

describe('projectManifest', () => {
  const ranges = { '@berth/core': '^1.2.3', fastify: '^5.4.0' };
  it('replaces workspace references by published ranges and keeps third-party ranges', () => {
    const manifest = projectManifest(
      { name: '@berth/template-x', private: true, dependencies: { '@berth/core': 'workspace:*', zod: '^3.0.0' }, exports: { '.': { '@berth/source': './src/index.ts', default: './dist/index.js' } } },
      { name: 'x', template: 'gateway', ranges },
    );
    expect(manifest.dependencies).toEqual({ '@berth/core': '^1.2.3', zod: '^3.0.0' });
    expect(manifest.exports).toEqual({ '.': { default: './dist/index.js' } });
  });
  it('fails for a package with no published version', () => {
    expect(() => projectManifest({ dependencies: { '@berth/unknown': '*' } }, { name: 'x', template: 'gateway', ranges })).toThrow(/@berth\/unknown/);
  });
  it('derives a valid package name from a directory name', () => {
    expect(packageNameOf('My Gateway!')).toBe('my-gateway');
    expect(packageNameOf('.hidden')).toBe('hidden');
    expect(packageNameOf('___')).toBe('berth-app');
  });
  it('reads the versions of every publishable workspace package', () => {
    expect(defaultTemplateSource().ranges['@berth/plugin-transport-fastify']).toMatch(/^\^\d+\.\d+\.\d+$/);
  });
});
