import { INLINE_COMPONENTS, WEB_TOOL_COMPONENTS } from '@switchyard/contracts';
import { COMPONENT_TIMEOUT_TABLE_MS } from './component-timeout';
import {
  COMPONENTS,
  PURE_COMPONENTS,
  componentDescriptor,
  componentsWith,
  pureComponent,
} from './components';
import { KNOWN_COMPONENTS } from './validate-canvas';

describe('COMPONENTS, the one descriptor per component class', () => {
  it('has a pure runner for exactly the components contracts says run inline', () => {
    expect([...componentsWith('pure')].sort()).toEqual([...INLINE_COMPONENTS].sort());
    expect(Object.keys(PURE_COMPONENTS).sort()).toEqual([...INLINE_COMPONENTS].sort());
    expect(pureComponent('Switch')).toBe(COMPONENTS['Switch'].pure);
    expect(pureComponent('Message')).toBeUndefined();
  });

  it('answers only for its own classes, not for names on Object.prototype', () => {
    expect(componentDescriptor('Agent')?.timeoutMs).toBe(1_200_000);
    expect(componentDescriptor('constructor')).toBeUndefined();
    expect(pureComponent('toString')).toBeUndefined();
  });

  it('knows every component that runs inline and every web tool', () => {
    expect(INLINE_COMPONENTS.filter((c) => !KNOWN_COMPONENTS.has(c))).toEqual([]);
    expect(WEB_TOOL_COMPONENTS.filter((c) => !KNOWN_COMPONENTS.has(c))).toEqual([]);
  });

  it("keeps RAGFlow's per-class timeouts and the classes that catch their own failure", () => {
    expect(COMPONENT_TIMEOUT_TABLE_MS).toEqual({
      Agent: 1_200_000,
      Switch: 3_000,
      VariableAggregator: 3_000,
      Invoke: 60_000,
      Retrieval: 12_000,
      ExeSQL: 60_000,
      TavilySearch: 12_000,
      YahooFinance: 60_000,
      TavilyExtract: 600_000,
    });
    expect([...componentsWith('selfCatching')].sort()).toEqual([
      'CodeExec',
      'Invoke',
      'TavilySearch',
      'YahooFinance',
    ]);
    expect([...componentsWith('neverSkipped')].sort()).toEqual(['Begin', 'UserFillUp']);
  });

  it('checks params on save only with the schemas the classes declare', () => {
    expect(
      Object.entries(COMPONENTS)
        .filter(([, f]) => f.params)
        .map(([n]) => n)
        .sort(),
    ).toEqual(['Categorize', 'DocGenerator', 'ExcelProcessor', 'Switch']);
  });
});
