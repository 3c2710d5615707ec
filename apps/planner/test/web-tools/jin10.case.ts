import type { WebToolCase } from './web-tool-case';

const SECRET = 'jin10-e2e-secret';

export const JIN10_CASE: WebToolCase = {
  component: 'Jin10',
  envName: 'JIN10',
  key: { provider: 'jin10', secret: SECRET },
  routes: (s, prefix) =>
    s.on('GET', `/${prefix}/data-api/flash`, (req) =>
      req.headers['secret-key'] !== SECRET
        ? { json: { status: 401, message: 'secret-key invalid', data: null } }
        : {
            json: {
              status: 200,
              message: 'OK',
              data: [
                {
                  id: '20240506100100000100',
                  time: '2024-05-06 10:01:00',
                  type: 0,
                  data: {
                    pic: '',
                    title: '',
                    source: '',
                    content: `Spot gold rose 1% in category ${req.query['category']}.`,
                  },
                  important: 1,
                  tags: [],
                  channel: [1],
                  remark: [],
                },
                {
                  id: '20240506095800000100',
                  time: '2024-05-06 09:58:00',
                  type: 0,
                  data: { pic: '', title: '', source: '', content: 'European stocks opened higher.' },
                  important: 0,
                  tags: [],
                  channel: [1],
                  remark: [],
                },
              ],
            },
          },
    ),
  params: { type: 'flash', flash_type: '4' },
  prompt: 'market news',
  expected: ['Spot gold rose 1% in category 4.', 'European stocks opened higher.'],
  agent: { args: { query: 'latest market news' }, reads: 'European stocks opened higher.' },
};
