import type { Canvas } from './dsl.schema';
import { htmlText, invokeRequest } from './invoke-request';
import type { VariableScope } from './variable-ref';

const canvas: Canvas = {
  components: { 'U:In': { id: 'U:In', name: 'UserFillUp', params: {}, downstream: [], upstream: [] } },
  globals: {},
  variables: {},
  names: {},
};
const scope: VariableScope = {
  canvas,
  globals: { 'sys.query': 'apple', 'env.token': 't0k' },
  outputs: { 'U:In': { city: 'Paris', payload: '{"a": [1, 2]}' } },
};

describe(invokeRequest.name, () => {
  it('templates the URL, adds http:// and reads GET args from refs and values', () => {
    const req = invokeRequest(scope, {
      url: '127.0.0.1:8080/search/{U:In@city}',
      method: 'get',
      variables: [
        { key: 'q', ref: 'sys.query' },
        { key: 'lang', value: 'en-{U:In@city}' },
        { key: 'none', ref: 'U:In@missing' },
      ],
    });
    expect(req).toEqual({
      method: 'GET',
      url: 'http://127.0.0.1:8080/search/Paris',
      headers: {},
      args: { q: 'apple', lang: 'en-Paris', none: '' },
      datatype: 'json',
      timeoutMs: 60_000,
      cleanHtml: false,
    });
  });

  it('coerces JSON-looking args in json mode only, and fills header placeholders', () => {
    const params = {
      url: 'https://api.example.com',
      method: 'POST',
      variables: [{ key: 'payload', ref: 'U:In@payload' }],
      headers: '{"Authorization": "Bearer {env.token}", "X-City": "{U:In@city}"}',
      timeout: 5,
    };
    const json = invokeRequest(scope, params);
    expect(json.args).toEqual({ payload: { a: [1, 2] } });
    // Upstream's header placeholder allows no ':', so a `Cpn:Id@var` reference stays as written.
    expect(json.headers).toEqual({ Authorization: 'Bearer t0k', 'X-City': '{U:In@city}' });
    expect(json.timeoutMs).toBe(5000);
    expect(invokeRequest(scope, { ...params, datatype: 'formdata' }).args).toEqual({
      payload: '{"a": [1, 2]}',
    });
  });

  it.each([
    [{ url: '' }, 'End point URL does not support empty value.'],
    [{ url: 'x', method: 'delete' }, 'method delete is not supported'],
    [{ url: 'x', headers: '[1]' }, 'Invoke headers must be a JSON object.'],
    [{ url: 'x', timeout: 0 }, 'Timeout time in second 0 not supported'],
    [{ url: 'x', datatype: 'xml' }, 'datatype xml is not supported'],
  ])('%j is refused: %s', (params, message) => {
    expect(() => invokeRequest(scope, params)).toThrow(message);
  });
});

describe(htmlText.name, () => {
  it('keeps the text of blocks, one per line, without scripts, styles or tags', () => {
    expect(
      htmlText(
        '<html><head><title>T</title><style>p{}</style><script>x()</script></head><body><h1>Hi &amp; bye</h1><p>a <b>b</b>&#33;</p></body></html>',
      ),
    ).toBe('T\nHi & bye\na b!');
  });
});
