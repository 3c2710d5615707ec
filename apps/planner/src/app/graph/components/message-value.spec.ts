import { messageValueText } from './message-value';

const info = {
  doc_id: 'd1',
  filename: 'a.pdf',
  mime_type: 'application/pdf',
  size: 3,
  url: '/v1/files/d1/content',
};

describe('messageValueText (RAGFlow _stringify_message_value)', () => {
  it('takes a download info out of the text', () => {
    expect(messageValueText(JSON.stringify({ ...info, include_download_info_in_content: false }))).toEqual({
      text: '',
      downloads: [info],
    });
  });
  it('shows it as JSON (without the flag) when it asks to be in the content', () => {
    const v = messageValueText({ ...info, include_download_info_in_content: true });
    expect(v.text).toBe(JSON.stringify(info));
    expect(v.downloads).toEqual([info]);
  });
  it("prints other values as a Message does: null empty, text itself, the rest as Python's json.dumps", () => {
    expect(messageValueText(null)).toEqual({ text: '', downloads: [] });
    expect(messageValueText('hi')).toEqual({ text: 'hi', downloads: [] });
    expect(messageValueText({ a: 1 })).toEqual({ text: '{"a": 1}', downloads: [] });
  });
});
