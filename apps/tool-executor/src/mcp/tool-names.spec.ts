import { NodeNameSchema } from '@switchyard/contracts';
import { mcpNodeNames, toolSegment } from './tool-names';

// The planner offers `mcp.<server>.<tool>` as `mcp__<server>__<tool>` and maps back on '__'.
const asFunction = (node: string) => node.replace(/\./g, '__');
const back = (fn: string) => fn.replace(/__/g, '.');

describe('MCP tool node names', () => {
  it('namespaces tools under mcp.<server>. and maps back to the real names', () => {
    const names = mcpNodeNames('fs', ['read_file', 'list_directory']);
    expect([...names]).toEqual([
      ['mcp.fs.list_directory', 'list_directory'],
      ['mcp.fs.read_file', 'read_file'],
    ]);
  });

  it('sanitizes names to node-name segments without "__" and keeps the function mapping reversible', () => {
    const tools = [
      'trigger-long-running-operation',
      'getSum',
      'files/read.v2',
      '__weird__name__',
      'ÜBER tool',
      '!!!',
    ];
    const names = mcpNodeNames('every_thing', tools);
    expect([...names.values()].sort()).toEqual([...tools].sort());
    for (const node of names.keys()) {
      expect(NodeNameSchema.safeParse(node).success).toBe(true);
      const fn = asFunction(node);
      expect(fn).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(back(fn)).toBe(node);
    }
    expect(names.get('mcp.every_thing.trigger-long-running-operation')).toBe(
      'trigger-long-running-operation',
    );
    expect(names.get('mcp.every_thing.getsum')).toBe('getSum');
    expect(names.get('mcp.every_thing.files_read_v2')).toBe('files/read.v2');
    expect(names.get('mcp.every_thing.weird_name')).toBe('__weird__name__');
    expect(names.get('mcp.every_thing.tool')).toBe('!!!');
  });

  it('tells apart tools that sanitize alike, the same way on every call', () => {
    const a = mcpNodeNames('s', ['get-sum', 'Get-Sum']);
    const b = mcpNodeNames('s', ['Get-Sum', 'get-sum']);
    expect(a.size).toBe(2);
    expect([...a]).toEqual([...b]);
    expect([...a.values()].sort()).toEqual(['Get-Sum', 'get-sum']);
  });

  it('shortens long names to fit the 64-character function name, keeping them distinct', () => {
    const long1 = `${'x'.repeat(80)}_one`;
    const long2 = `${'x'.repeat(80)}_two`;
    const names = mcpNodeNames('server', [long1, long2]);
    expect(names.size).toBe(2);
    for (const node of names.keys()) {
      expect(asFunction(node).length).toBeLessThanOrEqual(64);
    }
    expect(toolSegment('abc', 10)).toBe('abc');
  });
});
