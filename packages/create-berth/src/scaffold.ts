import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { embedFastifyMain } from './embed-fastify.js';
import { packageNameOf, projectManifest, type Manifest } from './manifest.js';
import { projectReadme } from './readme.js';
import { defaultTemplateSource, type TemplateSource } from './template-source.js';
import { templates, type TemplateId } from './templates.js';

export interface ScaffoldOptions {
  /** Target directory (created when missing). */
  readonly directory: string;
  readonly template: TemplateId;
  /** package.json name; default: from the directory's name. */
  readonly name?: string;
  /** Write into a directory that is not empty (files of the same name are replaced). */
  readonly force?: boolean;
  readonly source?: TemplateSource;
}

export interface ScaffoldResult {
  readonly directory: string;
  readonly name: string;
  /** Paths written, relative to the directory, sorted. */
  readonly files: string[];
}

/** Thrown for a target create-berth refuses (a non-empty directory without `force`, a file). */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

/** Writes the project: the template's files, its package.json for the published packages, and its README. */
export function scaffold(options: ScaffoldOptions): ScaffoldResult {
  const directory = resolve(options.directory);
  const source = options.source ?? defaultTemplateSource();
  const info = templates[options.template];
  const from = join(info.under === 'examples' ? (source.examplesDir ?? source.dir) : source.dir, info.folder);
  // In the packed package a template's manifest is package.template.json (a nested package.json with
  // "exports" is flagged by publint, and would make the folder a package of its own).
  const manifestFile = [join(from, 'package.template.json'), join(from, 'package.json')].find((file) => existsSync(file));
  if (manifestFile === undefined) throw new ScaffoldError(`template folder ${from} not found`);
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory()) throw new ScaffoldError(`${directory} exists and is not a directory`);
    if (readdirSync(directory).length > 0 && !options.force) {
      throw new ScaffoldError(`${directory} is not empty; choose another directory or pass --force`);
    }
  }
  mkdirSync(directory, { recursive: true });
  const name = options.name ?? packageNameOf(basename(directory));

  cpSync(from, directory, {
    recursive: true,
    filter: (path) => !/[/\\](node_modules|dist|README\.md|package(\.template)?\.json)$/.test(path) || path === from,
  });
  const template = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const manifest = projectManifest(template, { name, template: options.template, ranges: source.ranges });
  writeFileSync(join(directory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const notesFile = join(from, 'README.md');
  const templateNotes = existsSync(notesFile) ? readFileSync(notesFile, 'utf8') : undefined;
  writeFileSync(join(directory, 'README.md'), projectReadme({ name, template: options.template, ...(templateNotes ? { templateNotes } : {}) }));
  writeFileSync(join(directory, '.gitignore'), 'node_modules/\ndist/\n');
  if (options.template === 'embed-fastify') writeFileSync(join(directory, 'src', 'main.ts'), embedFastifyMain);
  return { directory, name, files: listFiles(directory) };
}

function listFiles(directory: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(directory, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...listFiles(directory, path));
    } else found.push(path);
  }
  return found.sort();
}
