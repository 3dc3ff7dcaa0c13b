import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the template folders are and the version range to depend on for each published package. */
export interface TemplateSource {
  /** Folder holding one folder per template (gateway, gateway-postgres, runtime-plugin). */
  readonly dir: string;
  /**
   * Folder holding the example projects that are templates too (embed-express, embed-node-http,
   * in-process). Default: `dir` (the packed package holds both in one folder).
   */
  readonly examplesDir?: string;
  /** Package name → version range (`^x.y.z` of the `@berth` packages, the range of fastify). */
  readonly ranges: Readonly<Record<string, string>>;
}

/** This package's folder (the same from src/ and dist/). */
export const packageDir = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * The templates shipped in the package (`templates/`, written at pack time with `versions.json`), or, when
 * run from the Berth repository, the repository's templates/ and examples/ and the versions of its packages/*.
 */
export function defaultTemplateSource(): TemplateSource {
  const bundled = join(packageDir, 'templates');
  if (existsSync(join(bundled, 'versions.json'))) {
    return { dir: bundled, ranges: JSON.parse(readFileSync(join(bundled, 'versions.json'), 'utf8')) as Record<string, string> };
  }
  const repo = resolve(packageDir, '..', '..');
  return { dir: join(repo, 'templates'), examplesDir: join(repo, 'examples'), ranges: workspaceRanges(repo) };
}

/** `^version` of every publishable package under `<repo>/packages`, and the repository's fastify range. */
export function workspaceRanges(repo: string): Record<string, string> {
  const ranges: Record<string, string> = {};
  for (const name of readdirSync(join(repo, 'packages'))) {
    const file = join(repo, 'packages', name, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string; private?: boolean };
    if (manifest.private !== true) ranges[manifest.name] = `^${manifest.version}`;
  }
  const root = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  ranges.fastify = root.devDependencies?.fastify ?? '^5.4.0';
  return ranges;
}
