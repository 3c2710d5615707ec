// End-to-end tests: `*.e2e-spec.ts` under each app's or tool's test/ folder. They start real
// service processes from dist/ (built first) against real Postgres, Redis and NATS JetStream.
module.exports = {
  ...require('./jest.preset'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/{apps,libs,tools}/**/test/**/*.e2e-spec.ts'],
  testTimeout: 120000,
};
