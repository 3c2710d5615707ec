import type { WebToolComponentName } from '@switchyard/contracts';
import type { WebToolSpec } from './web-tool';
import { EMAIL } from './email';
import { WIKIPEDIA } from './wikipedia';

export * from './web-tool';

/** One spec per RAGFlow web tool that runs here (contracts' WEB_TOOL_COMPONENTS: the compiler keeps the two alike). */
export const WEB_TOOL_SPECS: Readonly<Record<WebToolComponentName, WebToolSpec>> = {
  Wikipedia: WIKIPEDIA,
  Email: EMAIL,
};

export const WEB_TOOLS: readonly WebToolSpec[] = Object.values(WEB_TOOL_SPECS);
