import { ProviderStandIn } from '@switchyard/testing';
import { providerFetch } from '../provider-http';
import { providerEnvSchema } from '../provider-tools.config';
import { ProviderErrorCode } from '../provider.exception';
import { PUBMED } from './pubmed';
import type { WebToolCall } from './web-tool';

// PubMed against a local server answering NCBI's esearch (JSON) and efetch (PubMed XML) as
// eutils.ncbi.nlm.nih.gov sends them.

const article = `
<PubmedArticle>
    <MedlineCitation Status="MEDLINE" Owner="NLM" IndexingMethod="Automated">
        <PMID Version="1">38000001</PMID>
        <DateCompleted><Year>2024</Year><Month>01</Month><Day>15</Day></DateCompleted>
        <Article PubModel="Print-Electronic">
            <Journal>
                <ISSN IssnType="Electronic">1476-4687</ISSN>
                <JournalIssue CitedMedium="Internet">
                    <Volume>625</Volume>
                    <Issue>7994</Issue>
                    <PubDate><Year>2024</Year><Month>Jan</Month></PubDate>
                </JournalIssue>
                <Title>Nature</Title>
                <ISOAbbreviation>Nature</ISOAbbreviation>
            </Journal>
            <ArticleTitle>CRISPR <i>in vivo</i> editing of PCSK9.</ArticleTitle>
            <Pagination><StartPage>123</StartPage><EndPage>130</EndPage><MedlinePgn>123-130</MedlinePgn></Pagination>
            <ELocationID EIdType="doi" ValidYN="Y">10.1038/s41586-023-00001-1</ELocationID>
            <Abstract>
                <AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Base editing lowers LDL<sup>2</sup> in primates.</AbstractText>
                <AbstractText Label="RESULTS" NlmCategory="RESULTS">A second paragraph.</AbstractText>
            </Abstract>
            <AuthorList CompleteYN="Y">
                <Author ValidYN="Y"><LastName>Musunuru</LastName><ForeName>Kiran</ForeName><Initials>K</Initials></Author>
                <Author ValidYN="Y"><LastName>Doudna</LastName><ForeName>Jennifer A</ForeName><Initials>JA</Initials></Author>
                <Author ValidYN="Y"><CollectiveName>PCSK9 Study Group</CollectiveName></Author>
            </AuthorList>
            <Language>eng</Language>
        </Article>
    </MedlineCitation>
    <PubmedData>
        <PublicationStatus>ppublish</PublicationStatus>
        <ArticleIdList>
            <ArticleId IdType="pubmed">38000001</ArticleId>
            <ArticleId IdType="doi">10.1038/s41586-023-00001-1</ArticleId>
            <ArticleId IdType="pii">10.1038/s41586-023-00001-1</ArticleId>
        </ArticleIdList>
    </PubmedData>
</PubmedArticle>
<PubmedArticle>
    <MedlineCitation Status="PubMed-not-MEDLINE" Owner="NLM">
        <PMID Version="1">38000002</PMID>
        <Article PubModel="Electronic">
            <Journal><JournalIssue CitedMedium="Internet"><PubDate><Year>2023</Year></PubDate></JournalIssue><Title>Cells</Title></Journal>
            <ArticleTitle>A letter without abstract.</ArticleTitle>
        </Article>
    </MedlineCitation>
    <PubmedData><ArticleIdList><ArticleId IdType="pubmed">38000002</ArticleId></ArticleIdList></PubmedData>
</PubmedArticle>`;

const articleSet = (body: string) => `<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">
<PubmedArticleSet>${body}
</PubmedArticleSet>`;

let standIn: ProviderStandIn;
const call = (params: Record<string, unknown> = {}): WebToolCall => ({
  fetch: providerFetch(providerEnvSchema.parse({ SWITCHYARD_PROVIDER_ALLOW_HOSTS: '127.0.0.1' })),
  baseUrl: standIn.url,
  params: { ...PUBMED.defaults, ...params },
});

beforeAll(async () => {
  standIn = await new ProviderStandIn()
    .on('GET', '/entrez/eutils/esearch.fcgi', (req) => {
      if (req.query['term'] === 'broken') {
        return { json: { esearchresult: { ERROR: 'Invalid query syntax' } } };
      }
      const ids = req.query['term'] === 'nothing' ? [] : ['38000001', '38000002'];
      return {
        json: {
          header: { type: 'esearch', version: '0.3' },
          esearchresult: {
            count: String(ids.length),
            retmax: String(ids.length),
            retstart: '0',
            idlist: ids,
            translationset: [],
            querytranslation: `${req.query['term']}[All Fields]`,
          },
        },
      };
    })
    .on('GET', '/entrez/eutils/efetch.fcgi', {
      headers: { 'Content-Type': 'text/xml; charset=UTF-8' },
      text: articleSet(article),
    })
    .start();
});

afterAll(async () => {
  await standIn.stop();
});

describe('PubMed', () => {
  it('searches the top_n ids, fetches their records and renders each reference as upstream', async () => {
    const r = await PUBMED.call(call({ top_n: 2, email: 'lab@example.org' }), { query: 'pcsk9 crispr' });
    const [search, fetched] = standIn.requests.slice(-2);
    expect(search!.path).toBe('/entrez/eutils/esearch.fcgi');
    expect(search!.query).toEqual({
      db: 'pubmed',
      term: 'pcsk9 crispr',
      retmax: '2',
      retmode: 'json',
      tool: 'switchyard',
      email: 'lab@example.org',
    });
    expect(fetched!.path).toBe('/entrez/eutils/efetch.fcgi');
    expect(fetched!.query).toMatchObject({
      db: 'pubmed',
      id: '38000001,38000002',
      retmode: 'xml',
      email: 'lab@example.org',
    });
    const text = r.outputs['formalized_content'] as string;
    expect(text).toContain('Title: CRISPR in vivo editing of PCSK9.');
    expect(text).toContain('URL: https://pubmed.ncbi.nlm.nih.gov/38000001');
    expect(text).toContain(
      [
        'Title: CRISPR in vivo editing of PCSK9.',
        'Authors: Kiran Musunuru, Jennifer A Doudna',
        'Journal: Nature',
        'Volume: 625',
        'Issue: 7994',
        'Pages: 123-130',
        'DOI: 10.1038/s41586-023-00001-1',
        'Abstract: Base editing lowers LDL in primates.',
      ].join('\n'),
    );
    expect(text).toContain(
      'Title: A letter without abstract.\nAuthors: Unknown Authors\nJournal: Cells\nVolume: -\nIssue: -\nPages: -\nDOI: -\nAbstract: No abstract available',
    );
    expect(text).toContain('URL: https://pubmed.ncbi.nlm.nih.gov/38000002');
    expect(text).not.toContain('A second paragraph.');
    expect(r.answer).toBe(text);
  });

  it('answers an empty query with nothing, without a call; no ids is empty content without efetch', async () => {
    const before = standIn.requests.length;
    expect((await PUBMED.call(call(), { query: '' })).outputs).toEqual({ formalized_content: '' });
    expect(standIn.requests.length).toBe(before);
    expect((await PUBMED.call(call(), { query: 'nothing' })).outputs['formalized_content']).toBe('');
    expect(standIn.requests.length).toBe(before + 1);
    expect(standIn.requests.at(-1)!.query).toMatchObject({ retmax: '12', email: 'A.N.Other@example.com' });
  });

  it("fails on NCBI's error answer, and refuses a bad top_n naming it", async () => {
    await expect(PUBMED.call(call(), { query: 'broken' })).rejects.toMatchObject({
      code: ProviderErrorCode.BadResponse,
      message: 'PubMed: Invalid query syntax',
    });
    await expect(PUBMED.call(call({ top_n: -1 }), { query: 'x' })).rejects.toThrow('top_n');
  });
});
