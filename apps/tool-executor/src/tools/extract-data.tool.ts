import type { ToolDeclaration } from '@switchyard/worker';
import { EXTRACT_DATA_TOOL } from '@switchyard/persistence';

// Seed 001's `extract_data_by_path` as a tool of the planner (the reading is libs/persistence's).

export const extractDataTool: ToolDeclaration = {
  name: EXTRACT_DATA_TOOL.name,
  description: EXTRACT_DATA_TOOL.description,
  inputJsonSchema: EXTRACT_DATA_TOOL.parameters,
  idempotent: true,
};
