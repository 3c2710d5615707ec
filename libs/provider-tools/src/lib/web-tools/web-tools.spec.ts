import { KNOWN_COMPONENTS, NOT_YET_RUNNABLE } from '@switchyard/graph';
import { WEB_TOOLS, webToolUrlVariable, webToolUrls } from './index';

describe('WEB_TOOLS', () => {
  it('are RAGFlow components the validator knows and no longer refuses', () => {
    for (const spec of WEB_TOOLS) {
      expect(KNOWN_COMPONENTS.has(spec.component)).toBe(true);
      expect(NOT_YET_RUNNABLE.has(spec.component)).toBe(false);
    }
  });

  it('take their base URLs from SWITCHYARD_PROVIDER_URL_<TOOL>, naming a bad one', () => {
    const [first] = WEB_TOOLS;
    const name = webToolUrlVariable(first);
    expect(webToolUrls(WEB_TOOLS, { [name]: 'http://127.0.0.1:9/' })[first.component]).toBe(
      'http://127.0.0.1:9',
    );
    expect(webToolUrls(WEB_TOOLS, {})[first.component]).toBe(first.defaultBaseUrl);
    expect(() => webToolUrls(WEB_TOOLS, { [name]: 'ftp://x' })).toThrow(name);
    expect(() => webToolUrls(WEB_TOOLS, { [name]: 'http://u:p@x' })).toThrow(name);
  });
});
