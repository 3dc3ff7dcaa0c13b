/** Paths shared by the dependency rules. */
module.exports = {
  /**
   * Tests and test support: `*.test.ts`, `@berth/core/testing`, fixtures beside the tests that
   * use them (`*-fixture.ts`, `*-fixtures.ts`), the root test/ and bench/ trees.
   */
  testCode: '(\\.test\\.ts$|/testing/|-fixtures?\\.ts$|^test/|^bench/)',
  /** Build output and installed packages: never cruised. */
  generated: '(^|/)(node_modules|dist|coverage)/',
};
