import type { TemplateId } from './templates.js';

/** The parts of a package.json create-berth rewrites. */
export interface Manifest {
  name?: string;
  version?: string;
  private?: boolean;
  description?: string;
  exports?: unknown;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [key: string]: unknown;
}

const dependencyFields = ['dependencies', 'devDependencies', 'peerDependencies'] as const;

/**
 * The generated project's package.json: named after the project, every workspace dependency (`*`,
 * `workspace:`, `file:`) replaced by the published range of that package, and the repository-only
 * `@berth/source` export condition dropped. Throws when a dependency has no published range.
 */
export function projectManifest(template: Manifest, options: { name: string; template: TemplateId; ranges: Readonly<Record<string, string>> }): Manifest {
  const manifest: Manifest = { ...template, name: options.name, version: '0.1.0' };
  for (const field of dependencyFields) {
    const deps = template[field];
    if (deps === undefined) continue;
    manifest[field] = Object.fromEntries(Object.entries(deps).map(([name, range]) => [name, publishedRange(name, range, options.ranges)]));
  }
  if (options.template === 'embed-fastify') {
    manifest.dependencies = sorted({ ...manifest.dependencies, fastify: rangeOf('fastify', options.ranges) });
  }
  if (options.template === 'runtime-plugin') {
    delete manifest.private;
    manifest.scripts = { test: 'vitest run', ...manifest.scripts };
    manifest.devDependencies = sorted({ typescript: '~5.9.3', vitest: '^4.0.0', '@types/node': '^20.19.0', ...manifest.devDependencies });
  } else {
    manifest.private = true;
  }
  if (manifest.exports !== undefined) manifest.exports = withoutSourceCondition(manifest.exports);
  return manifest;
}

function publishedRange(name: string, range: string, ranges: Readonly<Record<string, string>>): string {
  const local = range === '*' || range.startsWith('workspace:') || range.startsWith('file:') || range.startsWith('link:');
  return local || name.startsWith('@berth/') ? rangeOf(name, ranges) : range;
}

function rangeOf(name: string, ranges: Readonly<Record<string, string>>): string {
  const range = ranges[name];
  if (range === undefined) throw new Error(`no published version known for ${name}`);
  return range;
}

function withoutSourceCondition(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '@berth/source').map(([key, inner]) => [key, withoutSourceCondition(inner)]));
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** A valid npm package name from a directory name (lower case, no spaces or leading dots). */
export function packageNameOf(directoryName: string): string {
  const name = directoryName.trim().toLowerCase().replace(/[^a-z0-9._~-]+/g, '-').replace(/^[._-]+/, '').replace(/-+$/, '');
  return name === '' ? 'berth-app' : name.slice(0, 214);
}
