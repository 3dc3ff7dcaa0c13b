import { createHash } from 'node:crypto';
import { Script } from 'node:vm';
import type * as TypeScript from 'typescript';

/** A JavaScript/TypeScript criterion turned into one script for the sandbox. */
export interface CompiledJavaScript {
  /** Content hash: the sandbox processes keep compiled scripts under it. */
  readonly key: string;
  /** Defines `globalThis.__berthModule()` → `{exports, entryFunc}` when run in a context. */
  readonly source: string;
  readonly filename: string;
}

export type CompileResult = { readonly ok: true; readonly compiled: CompiledJavaScript } | { readonly ok: false; readonly message: string };

export interface JavaScriptFiles {
  readonly fileContents: Readonly<Record<string, string>>;
  readonly entryFile: string;
  readonly entryFunc: string;
  /** Type annotations are stripped (the files are TypeScript). */
  readonly typescript: boolean;
}

type TypeScriptModule = typeof TypeScript;
let typescript: Promise<TypeScriptModule> | undefined;

/** `typescript` is loaded on the first compile only (gateways without code evaluators never load it). */
async function loadTypeScript(): Promise<TypeScriptModule> {
  typescript ??= import('typescript').then((module) => ('default' in module ? (module.default as TypeScriptModule) : module));
  return typescript;
}

/** A file name usable in the module table: relative, `/`-separated, no `..`. */
export function normaliseFileName(name: string): string | undefined {
  const parts: string[] = [];
  for (const part of name.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return undefined;
    parts.push(part);
  }
  return parts.length === 0 ? undefined : parts.join('/');
}

/**
 * The module loader that runs inside the context: `require` resolves only the evaluator's own files
 * (relative paths, with `.ts`/`.js`/`/index` tried in turn); anything else throws.
 */
const loaderSource = `
  var cache = Object.create(null);
  function resolve(from, spec) {
    if (spec.charAt(0) !== '.') throw new Error('cannot require "' + spec + '": only the evaluator\\'s own files can be required in the sandbox');
    var base = from.split('/'); base.pop();
    var parts = spec.split('/');
    for (var i = 0; i < parts.length; i++) { var p = parts[i]; if (p === '' || p === '.') continue; if (p === '..') base.pop(); else base.push(p); }
    var path = base.join('/');
    var candidates = [path, path + '.ts', path + '.js', path + '.mjs', path + '.cjs', path + '/index.ts', path + '/index.js'];
    for (var j = 0; j < candidates.length; j++) if (files[candidates[j]]) return candidates[j];
    throw new Error('cannot require "' + spec + '" from ' + from + ': no such file in the evaluator');
  }
  function load(name) {
    if (cache[name]) return cache[name].exports;
    var module = { exports: {} };
    cache[name] = module;
    files[name].call(module.exports, module.exports, function (spec) { return load(resolve(name, spec)); }, module);
    return module.exports;
  }
`;

/**
 * Compiles a criterion's files into one sandbox script: TypeScript types stripped and ES module syntax
 * turned into CommonJS (with `typescript`'s `transpileModule`, syntax errors reported), each file
 * wrapped as a function of a small module table, and the result parsed once by V8 here (compiled, not
 * run) so that a syntax error is a build error rather than a failed rollout.
 */
export async function compileJavaScriptCriterion(files: JavaScriptFiles): Promise<CompileResult> {
  const ts = await loadTypeScript();
  const table: string[] = [];
  for (const [rawName, text] of Object.entries(files.fileContents)) {
    const name = normaliseFileName(rawName);
    if (name === undefined) return { ok: false, message: `file name "${rawName}" is not a relative path inside the evaluator` };
    const output = ts.transpileModule(text, {
      fileName: files.typescript && !/\.[cm]?js$/.test(name) ? name.replace(/(\.[^./]*)?$/, '.ts') : name.replace(/(\.[^./]*)?$/, '.js'),
      reportDiagnostics: true,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        allowJs: true,
        esModuleInterop: false,
        sourceMap: false,
        removeComments: false,
      },
    });
    const errors = (output.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length > 0) {
      const first = errors[0]!;
      const where = first.file && first.start !== undefined ? first.file.getLineAndCharacterOfPosition(first.start) : undefined;
      const message = ts.flattenDiagnosticMessageText(first.messageText, '\n');
      return { ok: false, message: `${name}${where ? `:${where.line + 1}:${where.character + 1}` : ''}: ${message}` };
    }
    table.push(`${JSON.stringify(name)}: function (exports, require, module) {\n${output.outputText}\n}`);
  }
  const entry = normaliseFileName(files.entryFile);
  if (entry === undefined || !(entry in Object.fromEntries(Object.keys(files.fileContents).map((n) => [normaliseFileName(n) ?? '', true])))) {
    return { ok: false, message: `entryFile "${files.entryFile}" is not one of the criterion's files` };
  }
  const source = [
    'globalThis.__berthModule = function () {',
    `  var files = { ${table.join(',\n')} };`,
    loaderSource,
    `  return { exports: load(${JSON.stringify(entry)}), entryFunc: ${JSON.stringify(files.entryFunc)} };`,
    '};',
  ].join('\n');
  const filename = `evaluator/${entry}`;
  try {
    new Script(source, { filename });
  } catch (error) {
    return { ok: false, message: `${entry}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const key = createHash('sha256').update(source).digest('hex').slice(0, 32);
  return { ok: true, compiled: { key, source, filename } };
}
