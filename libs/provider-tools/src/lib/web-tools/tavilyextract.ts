import { z } from 'zod';
import { ProviderErrorCode, ProviderException } from '../provider.exception';
import { type WebToolSpec, getJson, shapeOf } from './web-tool';

// Tavily's extract API (POST /extract, the key as a bearer token): each URL's page content.
const ExtractSchema = z
  .object({
    results: z.array(z.object({ url: z.string(), raw_content: z.string().nullish() }).passthrough()),
  })
  .passthrough();

const DEPTHS = ['basic', 'advanced'];
const FORMATS = ['markdown', 'text'];

/** The URLs from the model (a list) or a canvas (one text, comma-separated, as upstream splits it). */
function urlList(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  return list.map((u) => String(u ?? '').trim()).filter((u) => u);
}

/** RAGFlow agent/tools/tavily.py TavilyExtract: the content of the pages at the given URLs. */
export const TAVILY_EXTRACT: WebToolSpec = {
  component: 'TavilyExtract',
  functionName: 'tavily_extract',
  envName: 'TAVILYEXTRACT',
  defaultBaseUrl: 'https://api.tavily.com',
  key: { provider: 'tavily', required: true },
  description: 'Extract web page content from one or more specified URLs using Tavily Extract.',
  parameters: {
    type: 'object',
    properties: {
      urls: {
        type: 'array',
        description: 'The URLs to extract content from.',
        items: { type: 'string', description: 'The URL to extract content from, e.g. www.yahoo.com' },
      },
      extract_depth: {
        type: 'string',
        description:
          'The depth of the extraction process. advanced extraction retrieves more data, including tables and embedded content, with higher success but may increase latency.basic extraction costs 1 credit per 5 successful URL extractions, while advanced extraction costs 2 credits per 5 successful URL extractions.',
        enum: DEPTHS,
      },
      format: {
        type: 'string',
        description:
          'The format of the extracted web page content. markdown returns content in markdown format. text returns plain text and may increase latency.',
        enum: FORMATS,
      },
    },
    required: ['urls'],
  },
  inputs: { urls: '', extract_depth: 'basic', format: 'markdown' },
  defaults: { extract_depth: 'basic', format: 'markdown' },
  async call(ctx, args) {
    const urls = urlList(args['urls']);
    if (urls.length === 0) {
      return { outputs: { json: [] }, answer: '[]', summary: 'TavilyExtract: no URLs, nothing extracted' };
    }
    // The model's choice, else the component's param (upstream fills the missing ones from it).
    const pick = (name: string, allowed: string[]): string => {
      const v = String(args[name] || ctx.params[name]);
      if (!allowed.includes(v)) {
        throw new ProviderException(
          ProviderErrorCode.InvalidInput,
          `TavilyExtract: ${name} "${v}" is not one of ${allowed.join(', ')}`,
        );
      }
      return v;
    };
    const extractDepth = pick('extract_depth', DEPTHS);
    const format = pick('format', FORMATS);
    const body = shapeOf(
      ExtractSchema,
      await getJson(ctx, 'TavilyExtract', `${ctx.baseUrl}/extract`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ctx.apiKey ?? ''}` },
        // Upstream always turns images off.
        body: JSON.stringify({ urls, extract_depth: extractDepth, format, include_images: false }),
      }),
      'TavilyExtract answered without a results list',
    );
    const results = body.results;
    return {
      outputs: { json: results },
      // Upstream hands the model the results list itself.
      answer: JSON.stringify(results),
      summary: `TavilyExtract: ${results.length} of ${urls.length} page(s) extracted`,
    };
  },
};
