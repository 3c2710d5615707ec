import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from '@switchyard/contracts';

/** Splits a document into chunks of at most `chunkSize` characters (paragraphs, then lines, words…). */
export async function chunkText(
  text: string,
  chunkSize = DEFAULT_CHUNK_SIZE,
  chunkOverlap = DEFAULT_CHUNK_OVERLAP,
): Promise<string[]> {
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap });
  const chunks = await splitter.splitText(text);
  return chunks.map((c) => c.trim()).filter((c) => c.length > 0);
}
