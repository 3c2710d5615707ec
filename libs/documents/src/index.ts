export {
  type Cell,
  type Frame,
  concatFrames,
  frameFromRecords,
  frameMarkdown,
  outerJoin,
  recordsOf,
} from './lib/frames';
export { SpreadsheetError, readSpreadsheet, sheetName, writeCsv, writeXlsx } from './lib/spreadsheet';
export { type Block, markdownBlocks, plainText } from './lib/markdown-blocks';
export {
  DOCUMENT_FORMATS,
  DocumentError,
  type DocumentFormat,
  type DocumentOptions,
  type RenderedDocument,
  renderDocument,
} from './lib/render-document';
