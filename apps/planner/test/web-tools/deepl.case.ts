import type { WebToolCase } from './web-tool-case';

const SECRET = 'deepl-web-tools-e2e-key:fx';
const TRANSLATIONS: Record<string, string> = {
  早上好: 'Good morning',
  谢谢你的帮助: 'Thank you for your help',
};

export const DEEPL_CASE: WebToolCase = {
  component: 'DeepL',
  envName: 'DEEPL',
  key: { provider: 'deepl', secret: SECRET },
  routes: (s, prefix) =>
    s.on('POST', `/${prefix}/v2/translate`, (req) => {
      if (req.headers['authorization'] !== `DeepL-Auth-Key ${SECRET}`) {
        return {
          status: 403,
          json: { message: 'Authorization failed. Please supply a valid auth_key parameter.' },
        };
      }
      const body = JSON.parse(req.body) as { text: string[]; source_lang: string; target_lang: string };
      return {
        json: {
          translations: body.text.map((t) => ({
            detected_source_language: body.source_lang,
            text: `${TRANSLATIONS[t] ?? t} (${body.target_lang})`,
          })),
        },
      };
    }),
  params: { source_lang: 'ZH', target_lang: 'EN-US' },
  prompt: '早上好',
  expected: ['Good morning (EN-US)'],
  agent: { args: { query: '谢谢你的帮助' }, reads: 'Thank you for your help (EN-US)' },
};
