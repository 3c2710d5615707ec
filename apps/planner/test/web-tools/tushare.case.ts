import type { WebToolCase } from './web-tool-case';

const SECRET = 'tushare-e2e-token';

export const TUSHARE_CASE: WebToolCase = {
  component: 'TuShare',
  envName: 'TUSHARE',
  key: { provider: 'tushare', secret: SECRET },
  routes: (s, prefix) =>
    s.on('POST', `/${prefix}`, (req) => {
      const body = JSON.parse(req.body) as { api_name: string; token: string; params: { src: string } };
      if (body.token !== SECRET) {
        return { json: { request_id: 'e2e-1', code: 40101, msg: 'token invalid', data: null } };
      }
      return {
        json: {
          request_id: 'e2e-2',
          code: 0,
          msg: '',
          data: {
            fields: ['datetime', 'content', 'title'],
            items: [
              ['2024-05-06 10:01:00', `Gold rises as the dollar weakens (${body.params.src})`, 'Gold'],
              ['2024-05-06 10:00:00', 'Oil falls on higher stocks', 'Oil'],
              ['2024-05-06 09:58:00', 'Copper demand hits a record in China', 'Copper'],
            ],
            has_more: false,
          },
        },
      };
    }),
  params: { src: 'sina', start_date: '2024-05-06 00:00:00', end_date: '2024-05-06 23:59:59' },
  prompt: 'gold',
  expected: ['Gold rises as the dollar weakens (sina)'],
  agent: { args: { query: 'copper' }, reads: 'Copper demand hits a record in China' },
};
