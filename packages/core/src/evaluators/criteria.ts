import { Ajv, type ValidateFunction } from 'ajv';
import type { EvaluatorCriterionSpec } from '../ports/evaluator-runner.js';
import type { JsonObject } from '../ports/json.js';

/** What a criterion is, from its `type` or, for TYPE_UNSPECIFIED, from the one configuration it carries. */
export type CriterionKind = 'CODE_SNIPPETS' | 'EXACT_MATCH' | 'REGEX' | 'JSON_SCHEMA' | 'REMOTE';
export type CodeLanguage = 'javascript' | 'typescript' | 'python';

export const criterionTypeValues = ['TYPE_UNSPECIFIED', 'CODE_SNIPPETS', 'EXACT_MATCH', 'REGEX', 'JSON_SCHEMA', 'REMOTE'] as const;

const configOf: Record<CriterionKind, keyof EvaluatorCriterionSpec> = {
  CODE_SNIPPETS: 'codeSnippets',
  EXACT_MATCH: 'exactMatch',
  REGEX: 'regex',
  JSON_SCHEMA: 'jsonSchema',
  REMOTE: 'remote',
};

/** A problem with a criterion's configuration: the field (relative to the criterion) and why. */
export interface CriterionProblem {
  readonly field: string;
  readonly message: string;
}

/** The criterion's kind; undefined when TYPE_UNSPECIFIED and none or several configurations are given. */
export function criterionKind(criterion: EvaluatorCriterionSpec): CriterionKind | undefined {
  const type = criterion.type ?? 'TYPE_UNSPECIFIED';
  if (type !== 'TYPE_UNSPECIFIED') return type in configOf ? (type as CriterionKind) : undefined;
  const given = (Object.keys(configOf) as CriterionKind[]).filter((kind) => criterion[configOf[kind]] !== undefined);
  return given.length === 1 ? given[0] : undefined;
}

/** `javascript`, `typescript` or `python` from the reference's free-form `language`. */
export function codeLanguage(language: string | undefined): CodeLanguage | undefined {
  switch ((language ?? '').trim().toLowerCase()) {
    case 'javascript': case 'js': case 'node': case 'nodejs': return 'javascript';
    case 'typescript': case 'ts': return 'typescript';
    case 'python': case 'python3': case 'py': return 'python';
    default: return undefined;
  }
}

const extensions: Record<CodeLanguage, readonly string[]> = {
  javascript: ['.js', '.mjs', '.cjs'],
  typescript: ['.ts', '.mts', '.cts', '.js'],
  python: ['.py'],
};

/** The entry file: the one given, else the only file, else `main.<ext>` when present. */
export function entryFileOf(language: CodeLanguage, fileContents: Readonly<Record<string, string>>, entryFile: string | undefined): string | undefined {
  if (entryFile !== undefined && entryFile !== '') return entryFile;
  const names = Object.keys(fileContents);
  if (names.length === 1) return names[0];
  return extensions[language].map((ext) => `main${ext}`).find((name) => name in fileContents);
}

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: true });
const compiledSchemas = new WeakMap<object, ValidateFunction>();
const regexKeywords = new Set(['pattern', 'patternProperties']);

/** The keywords of a schema that would run a user's regular expression on the gateway's own thread. */
function regexKeywordIn(node: unknown, path: string): string | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = regexKeywordIn(node[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (regexKeywords.has(key)) return path ? `${path}.${key}` : key;
      if (key === 'enum' || key === 'const') continue;
      const found = regexKeywordIn(value, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

/** The compiled validator of a JSON_SCHEMA criterion (kept with the schema object). */
export function schemaValidator(schema: JsonObject): ValidateFunction {
  let validate = compiledSchemas.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiledSchemas.set(schema, validate);
  }
  return validate;
}

const maxCodeBytes = 1024 * 1024;

/**
 * What is wrong with a criterion's configuration, without running anything: the checks of create and
 * update (INVALID_ARGUMENT) and of the build. Code is compiled by the build, not here.
 */
export function criterionProblem(criterion: EvaluatorCriterionSpec): CriterionProblem | undefined {
  const kind = criterionKind(criterion);
  if (kind === undefined) {
    return (criterion.type ?? 'TYPE_UNSPECIFIED') === 'TYPE_UNSPECIFIED'
      ? { field: 'type', message: 'give type, or exactly one of codeSnippets, exactMatch, regex, jsonSchema, remote' }
      : { field: 'type', message: `unknown criterion type ${criterion.type}` };
  }
  const config = configOf[kind];
  if (criterion[config] === undefined) return { field: config, message: `${config} is required when type is ${kind}` };
  for (const other of Object.values(configOf)) {
    if (other !== config && criterion[other] !== undefined) return { field: other, message: `${other} must not be set when type is ${kind}` };
  }
  switch (kind) {
    case 'CODE_SNIPPETS': {
      const code = criterion.codeSnippets ?? {};
      const language = codeLanguage(code.language);
      if (language === undefined) return { field: 'codeSnippets.language', message: 'language must be javascript, typescript or python' };
      const files = code.fileContents ?? {};
      if (Object.keys(files).length === 0) return { field: 'codeSnippets.fileContents', message: 'fileContents must hold at least one file' };
      const bytes = Object.entries(files).reduce((sum, [name, text]) => sum + name.length + text.length, 0);
      if (bytes > maxCodeBytes) return { field: 'codeSnippets.fileContents', message: `the files are larger than ${maxCodeBytes} bytes` };
      const entry = entryFileOf(language, files, code.entryFile);
      if (entry === undefined) return { field: 'codeSnippets.entryFile', message: 'entryFile is required when there are several files and none is main' };
      if (!(entry in files)) return { field: 'codeSnippets.entryFile', message: `entryFile "${entry}" is not one of fileContents` };
      if (code.entryFunc !== undefined && !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(code.entryFunc)) {
        return { field: 'codeSnippets.entryFunc', message: 'entryFunc must be an identifier' };
      }
      return undefined;
    }
    case 'REGEX': {
      const pattern = criterion.regex?.pattern ?? '';
      if (pattern === '') return { field: 'regex.pattern', message: 'pattern is required' };
      try {
        new RegExp(pattern, criterion.regex?.flags ?? '');
      } catch (error) {
        return { field: 'regex', message: `not a valid regular expression: ${error instanceof Error ? error.message : String(error)}` };
      }
      return undefined;
    }
    case 'JSON_SCHEMA': {
      const schema = criterion.jsonSchema?.schema;
      if (schema === undefined) return { field: 'jsonSchema.schema', message: 'schema is required' };
      const keyword = regexKeywordIn(schema, 'jsonSchema.schema');
      if (keyword !== undefined) return { field: keyword, message: 'pattern keywords are not accepted (use a REGEX or code criterion for patterns)' };
      try {
        schemaValidator(schema);
      } catch (error) {
        return { field: 'jsonSchema.schema', message: `not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}` };
      }
      return undefined;
    }
    case 'REMOTE': {
      const url = criterion.remote?.url ?? '';
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { field: 'remote.url', message: 'url must be an absolute http or https URL' };
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { field: 'remote.url', message: 'url must be an absolute http or https URL' };
      return undefined;
    }
    case 'EXACT_MATCH':
      return undefined;
  }
}
