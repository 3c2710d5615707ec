// The SDKs' `/react` entry points are subpath exports, which TypeScript's node10 resolution (the
// repository's) does not read; these point the types at the files those exports name. At run
// time jest resolves the exports itself.
declare module '@langchain/langgraph-sdk/react' {
  export * from '@langchain/langgraph-sdk/dist/react/index.cjs';
}
declare module 'langgraph-sdk-1/react' {
  export * from 'langgraph-sdk-1/dist/react/index.cjs';
}
