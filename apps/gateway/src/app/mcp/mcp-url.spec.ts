import { nonPublicReason, refuseMcpUrl } from './mcp-url';

describe('MCP server URLs', () => {
  it('refuses non-http URLs, credentials and private hosts unless allowed', async () => {
    expect(await refuseMcpUrl('ftp://example.com/mcp', [])).toContain('http or https');
    expect(await refuseMcpUrl('not a url', [])).toContain('absolute');
    expect(await refuseMcpUrl('https://user:pw@example.com/mcp', [])).toContain('credentials');
    expect(await refuseMcpUrl('http://127.0.0.1:3001/mcp', [])).toContain('127.0.0.1 is a loopback address');
    expect(await refuseMcpUrl('http://[::ffff:10.0.0.1]/mcp', [])).toContain('private');
    expect(await refuseMcpUrl('http://localhost:3001/mcp', [])).toMatch(/resolves to .*loopback/);
    expect(await refuseMcpUrl('http://127.0.0.1:3001/mcp', ['127.0.0.1'])).toBeUndefined();
    expect(await refuseMcpUrl('https://93.184.215.14/mcp', [])).toBeUndefined();
  });

  it('tells public from non-public addresses', () => {
    expect(nonPublicReason('8.8.8.8')).toBeUndefined();
    expect(nonPublicReason('2606:4700::1111')).toBeUndefined();
    expect(nonPublicReason('169.254.169.254')).toContain('linkLocal');
    expect(nonPublicReason('fc00::1')).toBeDefined();
  });
});
