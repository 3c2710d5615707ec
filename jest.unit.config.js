// Unit tests: `*.spec.ts` beside the code. Pure logic, plus adapters against the real services.
module.exports = {
  ...require('./jest.preset'),
  displayName: 'unit',
  testMatch: ['<rootDir>/{apps,libs,tools}/**/src/**/*.spec.ts'],
};
