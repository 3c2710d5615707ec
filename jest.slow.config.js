// Slow end-to-end checks: `*.slow-spec.ts` under a test/ folder (today the three-node JetStream
// cluster with nodes killed under load). Same stack as the e2e specs, but minutes each, so CI
// (the README's test command) leaves them out and they run before a submission:
// `bash tools/scripts/slow-check.sh`.
module.exports = {
  ...require('./jest.preset'),
  displayName: 'slow',
  testMatch: ['<rootDir>/{apps,libs,tools}/**/test/**/*.slow-spec.ts'],
  testTimeout: 300000,
};
