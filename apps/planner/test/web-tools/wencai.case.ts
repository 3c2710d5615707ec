import type { WebToolCase } from './web-tool-case';

// Upstream's WenCai answers an empty report (its data source is disabled): the Message shows
// nothing and the model reads an empty answer. No route: nothing may be fetched.
export const WENCAI_CASE: WebToolCase = {
  component: 'WenCai',
  envName: 'WENCAI',
  routes: () => undefined,
  params: { top_n: 10, query_type: 'stock' },
  prompt: 'stocks up 5% today',
  output: 'report',
  expected: [''],
  agent: { args: { query: 'stocks up 5% today' }, reads: '' },
};
