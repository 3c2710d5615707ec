// pdf-parse 1.x ships no types. Its entry point (index.js) runs a self-test when loaded without a
// parent module, so the library file is required directly.
declare module 'pdf-parse/lib/pdf-parse.js' {
  interface PdfParseResult {
    numpages: number;
    numrender: number;
    info: unknown;
    metadata: unknown;
    text: string;
    version: string;
  }
  function pdfParse(data: Uint8Array, options?: { max?: number }): Promise<PdfParseResult>;
  export = pdfParse;
}
