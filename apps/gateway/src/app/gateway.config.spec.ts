import { GatewayConfig } from './gateway.config';

describe('GatewayConfig: SWITCHYARD_CORS_ORIGINS', () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ['', []],
    ['*', ['*']],
    [
      'https://console.example.com, http://localhost:5173',
      ['https://console.example.com', 'http://localhost:5173'],
    ],
  ])('reads %j as %j', (value, origins) => {
    expect(
      new GatewayConfig(value === undefined ? {} : { SWITCHYARD_CORS_ORIGINS: value }).corsOrigins,
    ).toEqual(origins);
  });

  it.each(['console.example.com', 'https://console.example.com/app', 'ftp://x.example'])(
    'stops start-up naming the variable for %j',
    (value) => {
      expect(() => new GatewayConfig({ SWITCHYARD_CORS_ORIGINS: value })).toThrow(/SWITCHYARD_CORS_ORIGINS/);
    },
  );
});
