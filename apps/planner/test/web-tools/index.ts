import type { WebToolCase } from './web-tool-case';
import { WIKIPEDIA_CASE } from './wikipedia.case';

export type { WebToolCase } from './web-tool-case';

/** Every web tool's end-to-end case. */
export const WEB_TOOL_CASES: readonly WebToolCase[] = [WIKIPEDIA_CASE];
