import type { WebToolCase } from './web-tool-case';

const SECRET = 'qweather-web-tools-e2e-key';
const refer = { sources: ['QWeather'], license: ['QWeather Developers License'] };

// The location ids of the case's two cities, and their weather.
const CITIES: Record<string, string> = { Hangzhou: '101210101', Shanghai: '101020100' };
const TEMPS: Record<string, string> = { '101210101': '26', '101020100': '31' };

export const QWEATHER_CASE: WebToolCase = {
  component: 'QWeather',
  envName: 'QWEATHER',
  key: { provider: 'qweather', secret: SECRET },
  routes: (s, prefix) =>
    s
      .on('GET', `/${prefix}/geo/v2/city/lookup`, (req) => {
        const id = CITIES[req.query['location'] ?? ''];
        return {
          json:
            req.query['key'] !== SECRET
              ? { code: '401' }
              : !id
                ? { code: '404' }
                : {
                    code: '200',
                    location: [
                      {
                        name: req.query['location'],
                        id,
                        lat: '30.28746',
                        lon: '120.15358',
                        adm2: req.query['location'],
                        adm1: 'Zhejiang',
                        country: 'China',
                        tz: 'Asia/Shanghai',
                        utcOffset: '+08:00',
                        isDst: '0',
                        type: 'city',
                        rank: '11',
                        fxLink: 'https://www.qweather.com/en/weather/city.html',
                      },
                    ],
                    refer,
                  },
        };
      })
      .on('GET', `/${prefix}/v7/weather/now`, (req) => ({
        json:
          req.query['key'] !== SECRET
            ? { code: '401' }
            : {
                code: '200',
                updateTime: '2024-06-30T22:00+08:00',
                fxLink: 'https://www.qweather.com/en/weather/city.html',
                now: {
                  obsTime: '2024-06-30T21:40+08:00',
                  temp: TEMPS[req.query['location'] ?? ''] ?? '0',
                  feelsLike: '28',
                  icon: '305',
                  text: req.query['lang'] === 'en' ? 'Light Rain' : '小雨',
                  windDir: 'SE',
                  windScale: '2',
                  humidity: '85',
                },
                refer,
              },
      })),
  params: { type: 'weather', user_type: 'free', lang: 'en', time_period: 'now' },
  prompt: 'Hangzhou',
  expected: ["'obsTime': '2024-06-30T21:40+08:00'", "'temp': '26'", "'text': 'Light Rain'"],
  agent: { args: { query: 'Shanghai' }, reads: "'temp': '31'" },
};
