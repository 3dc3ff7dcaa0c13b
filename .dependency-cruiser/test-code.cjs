/** Production code never imports tests or test support (`@berth/core/testing`, fixtures, kits). */
const { testCode, generated } = require('./patterns.cjs');
const layers = require('./layers.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-production-import-of-test-code',
      comment: 'Test support lives in packages/core/src/testing (`@berth/core/testing`) and is imported by tests only.',
      severity: 'error',
      from: { path: '^(packages|templates)/[^/]+/src/', pathNot: testCode },
      to: { path: testCode },
    },
  ],
  options: { ...layers.options, exclude: { path: generated } },
};
