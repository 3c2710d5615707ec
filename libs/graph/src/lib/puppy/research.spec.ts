import {
  deepResearchConfig,
  deepResearchSystemPrompt,
  edgeModelName,
  extractToolCalls,
  formatVectorResults,
  formatWebResults,
  perplexityModel,
  toolResultsPrompt,
} from './research';

describe('PuppyEngine research edges', () => {
  it("reads an edge's model: a name, or the first key of PuppyFlow's model object", () => {
    expect(edgeModelName('openai/gpt-5')).toBe('openai/gpt-5');
    expect(edgeModelName({ 'sonar-pro': {} })).toBe('sonar-pro');
    expect(edgeModelName('  ')).toBeUndefined();
    expect(edgeModelName(undefined)).toBeUndefined();
  });

  it('maps Perplexity names as qa_search.py does', () => {
    expect(perplexityModel({ 'sonar-pro': {} })).toBe('perplexity/sonar-pro');
    expect(perplexityModel('sonar')).toBe('perplexity/sonar');
    expect(perplexityModel('llama-3.1-sonar-huge-128k-online')).toBe('perplexity/sonar-pro');
    expect(perplexityModel('sonar-deep')).toBe('perplexity/sonar-deep');
    expect(perplexityModel('openrouter/x')).toBe('openrouter/x');
    expect(perplexityModel(undefined)).toBe('perplexity/sonar');
  });

  it("extracts tool calls as the engine's regex does: one per line, quotes dropped, names upper-cased", () => {
    expect(
      extractToolCalls(
        'Let me look.\nAPI CALL: VECTOR_SEARCH "price"\nAPI CALL: google_search \'puppy agent\'\nAPI CALL: PERPLEXITY_SEARCH what is rag\nno call here',
      ),
    ).toEqual([
      { tool: 'VECTOR_SEARCH', args: 'price' },
      { tool: 'GOOGLE_SEARCH', args: 'puppy agent' },
      { tool: 'PERPLEXITY_SEARCH', args: 'what is rag' },
    ]);
    expect(extractToolCalls('The answer is 42.')).toEqual([]);
    // As Python slices it: a lone quote starts and ends with a quote.
    expect(extractToolCalls('API CALL: X "')).toEqual([{ tool: 'X', args: '' }]);
    // `\s*` crosses a line end, so a call without arguments takes the next line's text.
    expect(extractToolCalls('API CALL: GOOGLE_SEARCH\nrain in Oslo')).toEqual([
      { tool: 'GOOGLE_SEARCH', args: 'rain in Oslo' },
    ]);
  });

  it('offers VECTOR_SEARCH only with data sources, and carries results back in the engine’s words', () => {
    expect(deepResearchSystemPrompt(true)).toContain('API CALL: VECTOR_SEARCH "machine learning algorithms"');
    expect(deepResearchSystemPrompt(false)).not.toContain('VECTOR_SEARCH');
    expect(toolResultsPrompt([{ tool: 'GOOGLE_SEARCH', args: 'q', result: 'r' }])).toBe(
      `Tool execution results:\nTool: GOOGLE_SEARCH\nArguments: q\nResult: r\n${'-'.repeat(50)}\n\nPlease continue with your research or provide the final answer.`,
    );
    expect(formatWebResults([{ title: 'T', link: 'https://x', snippet: 's', content: 'c' }])).toBe(
      '1. T\n   URL: https://x\n   Content: c\n',
    );
    expect(
      formatVectorResults([
        { database: 'kb_1', results: [{ q: 'a' }, { content: 'b' }, 'c'] },
        { database: 'database_1', results: 'Error searching database: gone' },
      ]),
    ).toBe(
      "--- Results from kb_1 ---\n1. {'q': 'a'}\n2. b\n3. c\n\n--- Results from database_1 ---\nError searching database: gone\n",
    );
    expect(formatVectorResults([])).toBe('No results found from any vector database.');
  });

  it("reads deep research's settings with the engine's defaults, leaving out disabled sources", () => {
    expect(deepResearchConfig(undefined)).toEqual({
      temperature: 0.1,
      maxIterations: 5,
      vector: { sources: [], topK: 5, threshold: 0.7 },
      webTopK: 3,
      qaModel: 'perplexity/sonar',
    });
    const cfg = deepResearchConfig({
      model: 'gpt-5-mini',
      max_iterations: 2,
      vector_search_configs: {
        top_k: 2,
        threshold: 0.2,
        data_source: [{ id: 'kb' }, { id: 'off', index_item: { collection_configs: { enabled: false } } }],
      },
      google_search_configs: { top_k: 4 },
      perplexity_search_configs: { model: 'sonar-pro' },
    });
    expect(cfg).toEqual({
      model: 'gpt-5-mini',
      temperature: 0.1,
      maxIterations: 2,
      vector: { sources: [{ id: 'kb' }], topK: 2, threshold: 0.2 },
      webTopK: 4,
      qaModel: 'perplexity/sonar-pro',
    });
  });
});
