import { z } from 'zod';

/** A file of the tenant (`POST /v1/files`, `GET /v1/files/:id`). */
export const StoredFileSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  mime_type: z.string(),
  size: z.number().int(),
  // The run whose component made it; null for an upload.
  run_id: z.string().uuid().nullable(),
  created_at: z.string(),
});
