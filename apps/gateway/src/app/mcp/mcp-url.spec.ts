import { refuseMcpUrl } from './mcp-url';

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
    expect(await refuseMcpUrl('http://169.254.169.254/mcp', [])).toContain(
      '169.254.169.254 is a link-local address',
    );
  });
});
