import type { WebToolCase } from './web-tool-case';

// The PubMed ids of the case's two searches.
const PMIDS: Record<string, string> = { Photosynthesis: '38000001', Mitochondria: '38000002' };
const TERMS = Object.fromEntries(Object.entries(PMIDS).map(([term, id]) => [id, term]));

export const PUBMED_CASE: WebToolCase = {
  component: 'PubMed',
  envName: 'PUBMED',
  routes: (s, prefix) =>
    s
      .on('GET', `/${prefix}/entrez/eutils/esearch.fcgi`, (req) => {
        const id = PMIDS[req.query['term'] ?? ''];
        return {
          json: {
            header: { type: 'esearch', version: '0.3' },
            esearchresult: {
              count: id ? '1' : '0',
              retmax: id ? '1' : '0',
              retstart: '0',
              idlist: id ? [id] : [],
              translationset: [],
              querytranslation: `${req.query['term']}[All Fields]`,
            },
          },
        };
      })
      .on('GET', `/${prefix}/entrez/eutils/efetch.fcgi`, (req) => {
        const id = req.query['id'] ?? '';
        const term = TERMS[id] ?? 'Nothing';
        return {
          headers: { 'Content-Type': 'text/xml; charset=UTF-8' },
          text: `<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">
<PubmedArticleSet>
<PubmedArticle>
    <MedlineCitation Status="MEDLINE" Owner="NLM">
        <PMID Version="1">${id}</PMID>
        <Article PubModel="Print">
            <Journal>
                <JournalIssue CitedMedium="Internet"><Volume>12</Volume><Issue>3</Issue><PubDate><Year>2024</Year></PubDate></JournalIssue>
                <Title>Journal of ${term} Research</Title>
            </Journal>
            <ArticleTitle>Advances in <i>${term}</i>.</ArticleTitle>
            <Pagination><MedlinePgn>45-67</MedlinePgn></Pagination>
            <Abstract><AbstractText>${term} studied in depth (requested by ${req.query['email']}).</AbstractText></Abstract>
            <AuthorList CompleteYN="Y">
                <Author ValidYN="Y"><LastName>Curie</LastName><ForeName>Marie</ForeName><Initials>M</Initials></Author>
            </AuthorList>
        </Article>
    </MedlineCitation>
    <PubmedData>
        <ArticleIdList>
            <ArticleId IdType="pubmed">${id}</ArticleId>
            <ArticleId IdType="doi">10.1000/${id}</ArticleId>
        </ArticleIdList>
    </PubmedData>
</PubmedArticle>
</PubmedArticleSet>`,
        };
      }),
  params: { top_n: 3, email: 'lab@example.org' },
  prompt: 'Photosynthesis',
  expected: [
    'Advances in Photosynthesis.',
    'https://pubmed.ncbi.nlm.nih.gov/38000001',
    'Authors: Marie Curie',
    'Journal: Journal of Photosynthesis Research',
    'DOI: 10.1000/38000001',
    'Abstract: Photosynthesis studied in depth (requested by lab@example.org).',
  ],
  agent: {
    args: { query: 'Mitochondria' },
    reads: 'Mitochondria studied in depth (requested by lab@example.org).',
  },
};
