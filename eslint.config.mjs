// ESLint 9 flat config for the Switchyard monorepo.
// Run: NX_DAEMON=false npx eslint apps libs tools --max-warnings 0
import js from '@eslint/js';
import { createProjectGraphAsync } from '@nx/devkit';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// @nx/enforce-module-boundaries only reads the *cached* project graph
// (.nx/workspace-data): when that is missing or unreadable the rule silently skips
// itself, and when it is stale new projects/tags are not seen. So recompute it
// (incremental, ~1 s) on every config load, and refuse to lint on a broken graph
// (e.g. an invalid project.json) instead of passing with boundaries unchecked.
process.env.NX_DAEMON ??= 'false';
try {
  await createProjectGraphAsync({ exitOnError: false });
} catch (e) {
  throw new Error(
    `eslint.config.mjs: cannot build the Nx project graph, so module boundaries cannot be checked. ` +
      `Run "NX_DAEMON=false npx nx show projects" for details.\n${e?.stack ?? e}`,
  );
}

const TS_FILES = ['**/*.ts', '**/*.cts', '**/*.mts'];

// Typed data access (docs/adr/0026-kysely-repositories.md): SQL lives in repositories, written
// with Kysely over the table types of libs/persistence (a column rename fails to compile). Raw
// `.query(` calls and `as Row[]` casts of their results are allowed only where SQL belongs:
const RAW_SQL_ALLOWED = [
  '**/*.repository.ts', // repositories (Kysely; raw `sql` only where Kysely cannot say it)
  'libs/persistence/**', // the persistence layer itself: migrations, the state source, prepared statements
  'libs/sql-sources/**', // runs the user's own SQL against the user's database: raw by nature
  'libs/testing/**', // test harness: scratch databases, fixtures
  '**/*.spec.ts',
  '**/*.e2e-spec.ts',
  '**/*.slow-spec.ts',
  '**/*.fixture.ts', // a spec's wiring (a scratch database and its rows), never imported by the app
  // The user's SQL on the tenant's own database, through a libs/sql-sources session (its guards):
  'apps/planner/src/app/graph/components/exe-sql.component.ts',
  'apps/tool-executor/src/app/catalogue-tools.ts',
  'tools/bench/**', // benchmarks seed scratch databases and time statements as written
];
const RAW_SQL_MESSAGE =
  'raw SQL outside a repository: put the statement in a *.repository.ts of the layer that owns the table, ' +
  'written with Kysely (kyselyOf / kyselyTransaction from @switchyard/persistence)';
const ROW_ARRAY = '/^TS(ArrayType|TupleType)$/';
const RAW_SQL_SYNTAX = [
  {
    selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='query']",
    message: RAW_SQL_MESSAGE,
  },
  {
    selector: `TSAsExpression[typeAnnotation.type=${ROW_ARRAY}][expression.type='AwaitExpression'][expression.argument.callee.name='preparedQuery']`,
    message: `${RAW_SQL_MESSAGE} (preparedQuery<Row>(…) is typed: no cast needed)`,
  },
  {
    selector: `TSAsExpression[typeAnnotation.type=${ROW_ARRAY}][expression.type='MemberExpression'][expression.property.name='rows']`,
    message: RAW_SQL_MESSAGE,
  },
];

const SERVICES = [
  'gateway',
  'run-orchestrator',
  'planner',
  'tool-executor',
  'reflection',
  'retrieval',
  'output',
];

// Nx checks every constraint whose sourceTag the importing project carries, so a
// project must satisfy both its type:* and its scope:* constraint. A project whose
// tags match no constraint may not depend on any library (Nx default), and importing
// an application is always an error ("Imports of apps are forbidden").
const depConstraints = [
  // layers
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:adapter', 'type:util'],
  },
  {
    sourceTag: 'type:adapter',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util', 'type:adapter'],
  },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
  // scopes
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  ...SERVICES.map((s) => ({
    sourceTag: `scope:${s}`,
    onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared'],
  })),
];

// libs/state is pure domain logic: no drivers, no LLM SDKs, no Node I/O.
const NODE_IO_MODULES = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'tls',
  'dgram',
  'dns',
  'dns/promises',
  'child_process',
  'cluster',
  'worker_threads',
  'readline',
  'readline/promises',
  'inspector',
];
const STATE_IO_MESSAGE =
  'libs/state must stay pure (no I/O): do persistence/messaging in an adapter lib and pass data in.';
const GRAPH_IO_MESSAGE =
  'libs/graph must stay pure (no I/O): components that call models or services run in a node service.';

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/tmp/**',
      '**/coverage/**',
      '**/.nx/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      '**/*.mts',
    ],
  },
  ...nx.configs['flat/base'], // registers the @nx plugin
  {
    files: TS_FILES,
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parser: tseslint.parser,
      ecmaVersion: 2022,
      sourceType: 'module',
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  // keep prettier-off formatting rules before our own rules (it disables `curly`)
  prettier,
  {
    files: TS_FILES,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          banTransitiveDependencies: false,
          allow: [],
          depConstraints,
        },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      // In files with decorators (NestJS DI) typescript-eslint skips this rule because
      // tsconfig has experimentalDecorators + emitDecoratorMetadata.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
      'no-console': 'error',
    },
  },
  {
    files: TS_FILES,
    ignores: RAW_SQL_ALLOWED,
    rules: { 'no-restricted-syntax': ['error', ...RAW_SQL_SYNTAX] },
  },
  {
    files: ['libs/state/**/*.ts'],
    rules: { 'no-restricted-imports': pureImports(STATE_IO_MESSAGE) },
  },
  {
    // Graph semantics are pure too; their specs read the fixtures from disk.
    files: ['libs/graph/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': pureImports(GRAPH_IO_MESSAGE) },
  },
);

function pureImports(message) {
  return [
    'error',
    {
      paths: ['typeorm', 'ioredis', 'nats', 'pg', ...NODE_IO_MODULES.flatMap((m) => [m, `node:${m}`])].map(
        (name) => ({ name, message }),
      ),
      patterns: [
        {
          group: ['@langchain/*', 'langchain', 'langchain/*', 'typeorm/*', 'ioredis/*', 'nats/*', 'pg/*'],
          message,
        },
      ],
    },
  ];
}
