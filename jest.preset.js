// Shared jest settings: @swc/jest with Nest's decorator metadata, tsconfig paths mapped to sources.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = `<rootDir>/${target}`;
}

const ESM_ONLY = [
  'p-retry',
  'p-queue',
  'p-timeout',
  'is-network-error',
  'uuid',
  // jsdom 29's own (the web tools' Crawler and Baidu parse pages with it).
  '@exodus/bytes',
  '@asamuzakjp/[^/]+',
  '@csstools/[^/]+',
  'parse5',
  'entities',
  // @a2a-js/sdk's (agent card signatures).
  'jose',
];

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleNameMapper,
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        // The root .swcrc is for builds (it leaves specs out); tests bring their own settings.
        swcrc: false,
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
      },
    ],
    // ESM-only packages the LangGraph SDK loads (Node 20 requires them natively; jest in CJS mode
    // cannot): compiled to CommonJS like the sources. Every other node_modules file is left as is.
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.m?js$`]: [
      '@swc/jest',
      {
        swcrc: false,
        jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!.*/node_modules/)(?!(${ESM_ONLY.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
};
