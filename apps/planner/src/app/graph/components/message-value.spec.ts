import { messageValueText } from './message-value';

const json = (v: unknown) => JSON.stringify(v);
const info = {
  doc_id: 'd1',
  filename: 'a.pdf',
  mime_type: 'application/pdf',
  size: 3,
  url: '/v1/files/d1/content',
};

describe('messageValueText (RAGFlow _stringify_message_value)', () => {
  it('takes a download info out of the text', () => {
    expect(
      messageValueText(JSON.stringify({ ...info, include_download_info_in_content: false }), json),
    ).toEqual({
      text: '',
      downloads: [info],
    });
  });
  it('shows it as JSON (without the flag) when it asks to be in the content', () => {
    const v = messageValueText({ ...info, include_download_info_in_content: true }, json);
    expect(v.text).toBe(JSON.stringify(info));
    expect(v.downloads).toEqual([info]);
  });
  it('prints other values as a Message does: null empty, text itself, the rest by the given JSON', () => {
    expect(messageValueText(null, json)).toEqual({ text: '', downloads: [] });
    expect(messageValueText('hi', json)).toEqual({ text: 'hi', downloads: [] });
    expect(messageValueText({ a: 1 }, json)).toEqual({ text: '{"a":1}', downloads: [] });
  });
});
