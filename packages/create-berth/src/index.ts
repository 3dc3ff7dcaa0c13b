export { run, version, type CliIo } from './cli.js';
export { scaffold, ScaffoldError, type ScaffoldOptions, type ScaffoldResult } from './scaffold.js';
export { projectManifest, packageNameOf, type Manifest } from './manifest.js';
export { defaultTemplateSource, workspaceRanges, type TemplateSource } from './template-source.js';
export { templates, templateIds, isTemplateId, type TemplateId, type TemplateInfo } from './templates.js';
