/**
 * Layer rules of the production code, checked by `npm run check:deps` (and so by CI). Test code is left
 * out here (tests may import anything); `test-code.cjs` beside this file checks that production code
 * never imports it. Layers of @berth/core, bottom up: contracts → ports → everything else, and no cycle
 * between core's folders (type-only imports count: a type cycle is still a layering cycle).
 */
const { testCode, generated } = require('./patterns.cjs');
const coreFolder = '^packages/core/src/[^/]+';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-core-folder-cycle',
      comment: "Core's folders form layers: a folder never depends, directly or not, on one that depends on it.",
      severity: 'error',
      scope: 'folder',
      from: { path: coreFolder },
      to: { path: coreFolder, circular: true },
    },
    {
      name: 'no-module-cycle',
      comment: 'No runtime import cycle between modules of any package.',
      severity: 'error',
      from: { path: '^(packages|templates)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'contracts-at-the-bottom',
      comment: 'Contract types (request context, JSON, list query, precision) depend on nothing else in core.',
      severity: 'error',
      from: { path: '^packages/core/src/contracts/' },
      to: { path: '^packages/core/src/', pathNot: '^packages/core/src/contracts/' },
    },
    {
      name: 'ports-on-contracts-only',
      comment: 'Ports depend only on contract types and on each other.',
      severity: 'error',
      from: { path: '^packages/core/src/ports/' },
      to: { path: '^packages/core/src/', pathNot: '^packages/core/src/(contracts|ports)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: `${generated}|${testCode}` },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['@berth/source', 'import', 'require', 'node', 'default'] },
  },
};
