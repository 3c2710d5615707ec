import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode } from '../provider.exception';
import { QWEATHER } from './qweather';
import type { WebToolCall } from './web-tool';

// QWeather against a local server standing for an API Host: the city lookup under /geo/v2 and
// the weather data under /v7, in QWeather's documented JSON.

const KEY = 'qw-key-123';
const refer = { sources: ['QWeather'], license: ['QWeather Developers License'] };

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}, apiKey = KEY): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  apiKey,
  params: { ...QWEATHER.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/geo/v2/city/lookup', (req) =>
      req.query['key'] !== KEY
        ? { json: { code: '401' } }
        : req.query['location'] === 'Atlantis'
          ? { json: { code: '404' } }
          : {
              json: {
                code: '200',
                location: [
                  {
                    name: '北京',
                    id: '101010100',
                    lat: '39.90499',
                    lon: '116.40529',
                    adm2: '北京',
                    adm1: '北京市',
                    country: '中国',
                    tz: 'Asia/Shanghai',
                    utcOffset: '+08:00',
                    isDst: '0',
                    type: 'city',
                    rank: '10',
                    fxLink: 'https://www.qweather.com/weather/beijing-101010100.html',
                  },
                ],
                refer,
              },
            },
    )
    .on('GET', '/v7/weather/now', {
      json: {
        code: '200',
        updateTime: '2024-06-30T22:00+08:00',
        fxLink: 'https://www.qweather.com/weather/beijing-101010100.html',
        now: {
          obsTime: '2024-06-30T21:40+08:00',
          temp: '24',
          text: '多云',
          windDir: '东南风',
          humidity: '72',
        },
        refer,
      },
    })
    .on('GET', '/v7/weather/3d', {
      json: {
        code: '200',
        updateTime: '2024-06-30T22:00+08:00',
        daily: [
          { fxDate: '2024-07-01', tempMax: '31', tempMin: '22', textDay: "Sunny, don't worry" },
          {
            fxDate: '2024-07-02',
            tempMax: '29',
            tempMin: '21',
            textDay: 'Rain',
            textNight: 'It\'s "wet"\nand\\cold',
          },
        ],
        refer,
      },
    })
    .on('GET', '/v7/indices/1d', {
      json: {
        code: '200',
        updateTime: '2024-06-30T22:00+08:00',
        daily: [
          {
            date: '2024-06-30',
            type: '1',
            name: '运动指数',
            level: '3',
            category: '较不宜',
            text: '天气较热。',
          },
          { date: '2024-06-30', type: '2', name: '洗车指数', level: '1', category: '适宜', text: '无雨。' },
        ],
        refer,
      },
    })
    .on('GET', '/v7/air/now', {
      json: {
        code: '200',
        updateTime: '2024-06-30T22:00+08:00',
        now: { pubTime: '2024-06-30T21:00+08:00', aqi: '28', category: '优', primary: 'NA', pm2p5: '5' },
        station: [],
        refer,
      },
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('QWeather', () => {
  it("looks up the city, then its current weather with the key and lang, printed as upstream's dict", async () => {
    const r = await QWEATHER.call(call({ lang: 'en' }), { query: '北京' });
    const [lookup, weather] = standIn.requests.slice(-2);
    expect(lookup!.path).toBe('/geo/v2/city/lookup');
    expect(lookup!.query).toEqual({ location: '北京', key: KEY });
    expect(weather!.path).toBe('/v7/weather/now');
    expect(weather!.query).toEqual({ location: '101010100', key: KEY, lang: 'en' });
    const text =
      "{'obsTime': '2024-06-30T21:40+08:00', 'temp': '24', 'text': '多云', 'windDir': '东南风', 'humidity': '72'}";
    expect(r.outputs).toEqual({ formalized_content: text });
    expect(r.answer).toBe(text);
  });

  it('answers a forecast one day a line, the life indices, and the air quality', async () => {
    const forecast = await QWEATHER.call(call({ time_period: '3d' }), { query: 'Beijing' });
    expect(standIn.requests.at(-1)!.path).toBe('/v7/weather/3d');
    expect(forecast.answer).toBe(
      `{'fxDate': '2024-07-01', 'tempMax': '31', 'tempMin': '22', 'textDay': "Sunny, don't worry"}\n` +
        "{'fxDate': '2024-07-02', 'tempMax': '29', 'tempMin': '21', 'textDay': 'Rain', 'textNight': 'It\\'s \"wet\"\\nand\\\\cold'}",
    );
    const indices = await QWEATHER.call(call({ type: 'indices' }), { query: 'Beijing' });
    expect(standIn.requests.at(-1)!.query).toEqual({
      type: '0',
      location: '101010100',
      key: KEY,
      lang: 'zh',
    });
    expect(indices.outputs['formalized_content']).toBe(
      '2024-06-30\n运动指数: 较不宜, 天气较热。\n洗车指数: 适宜, 无雨。',
    );
    const air = await QWEATHER.call(call({ type: 'airquality' }), { query: 'Beijing' });
    expect(standIn.requests.at(-1)!.path).toBe('/v7/air/now');
    expect(air.answer).toBe(
      "{'pubTime': '2024-06-30T21:00+08:00', 'aqi': '28', 'category': '优', 'primary': 'NA', 'pm2p5': '5'}",
    );
  });

  it("uses upstream's public hosts at the default base URL: geoapi, then devapi (free) or api (paid)", async () => {
    const urls: string[] = [];
    const recording = async (url: string | URL) => {
      urls.push(String(url));
      const body = String(url).includes('/city/lookup')
        ? { code: '200', location: [{ id: '101010100' }] }
        : { code: '200', now: { temp: '24' } };
      return new Response(JSON.stringify(body), { status: 200 });
    };
    const at = (userType: string): WebToolCall => ({
      ...call({ user_type: userType }),
      fetch: recording,
      baseUrl: QWEATHER.defaultBaseUrl,
    });
    expect((await QWEATHER.call(at('free'), { query: 'Beijing' })).answer).toBe("{'temp': '24'}");
    await QWEATHER.call(at('paid'), { query: 'Beijing' });
    expect(urls.map((u) => u.split('?')[0])).toEqual([
      'https://geoapi.qweather.com/v2/city/lookup',
      'https://devapi.qweather.com/v7/weather/now',
      'https://geoapi.qweather.com/v2/city/lookup',
      'https://api.qweather.com/v7/weather/now',
    ]);
  });

  it('answers an empty location with nothing, without a call', async () => {
    const before = standIn.requests.length;
    expect((await QWEATHER.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
  });

  it("fails with upstream's words for QWeather's codes, and refuses bad params naming them", async () => {
    await expect(QWEATHER.call(call(), { query: 'Atlantis' })).rejects.toMatchObject({
      code: ProviderErrorCode.BadResponse,
      message: 'QWeather answered 404: The queried data or region does not exist.',
    });
    await expect(QWEATHER.call(call({}, 'wrong'), { query: 'Beijing' })).rejects.toMatchObject({
      code: ProviderErrorCode.Unauthorized,
    });
    await expect(QWEATHER.call(call({ time_period: '5d' }), { query: 'Beijing' })).rejects.toThrow(
      'time_period',
    );
    await expect(QWEATHER.call(call({ type: 'rain' }), { query: 'Beijing' })).rejects.toThrow(
      'QWeather: type "rain"',
    );
    await expect(QWEATHER.call(call({ user_type: 'vip' }), { query: 'Beijing' })).rejects.toThrow(
      'user_type',
    );
    await expect(QWEATHER.call(call({ lang: 'xx' }), { query: 'Beijing' })).rejects.toThrow('lang');
  });
});
