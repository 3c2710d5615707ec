import { createHash } from 'node:crypto';
import type { WebToolCase } from './web-tool-case';

const APPID = '20240001000000001';
const SECRET_KEY = 'baidu-fanyi-e2e-secret';
const TRANSLATIONS: Record<string, string> = {
  早上好: 'Good morning',
  谢谢你的帮助: 'Thank you for your help',
};
const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

export const BAIDU_FANYI_CASE: WebToolCase = {
  component: 'BaiduFanyi',
  envName: 'BAIDUFANYI',
  key: { provider: 'baidu_fanyi', secret: `${APPID}:${SECRET_KEY}` },
  routes: (s, prefix) =>
    s.on('POST', `/${prefix}/api/trans/vip/translate`, (req) => {
      const f = Object.fromEntries(new URLSearchParams(req.body));
      const q = f['q'] ?? '';
      if (f['appid'] !== APPID) {
        return { json: { error_code: '52003', error_msg: 'UNAUTHORIZED USER' } };
      }
      if (f['sign'] !== md5(`${APPID}${q}${f['salt']}${SECRET_KEY}`)) {
        return { json: { error_code: '54001', error_msg: 'Invalid Sign' } };
      }
      return {
        json: {
          from: 'zh',
          to: f['to'],
          trans_result: [{ src: q, dst: `${TRANSLATIONS[q] ?? q} [${f['to']}]` }],
        },
      };
    }),
  params: { trans_type: 'translate', source_lang: 'zh', target_lang: 'en', domain: 'finance' },
  prompt: '早上好',
  expected: ['Good morning [en]'],
  agent: { args: { query: '谢谢你的帮助' }, reads: 'Thank you for your help [en]' },
};
