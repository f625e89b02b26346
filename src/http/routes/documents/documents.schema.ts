import { z } from 'zod';
import { documentSchema, documentStatuses } from '../../../schemas/document.js';
import { pageSchema } from '../../../schemas/common.js';
import { idParam, pageQueryShape } from '../common.schema.js';

export const agentDocumentsParams = idParam('agent');

export const documentParams = z.object({
  ...idParam('agent').shape,
  ...idParam('document', 'doc_id').shape,
});

export const listDocumentsQuery = z.object({
  ...pageQueryShape,
  status: z.enum(documentStatuses).optional(),
});

export const searchDocumentsQuery = z.object({
  q: z.string().trim().min(1).max(2000).meta({ description: 'The query text.' }),
  k: z.coerce.number().int().min(1).max(50).default(5).meta({ description: 'How many chunks to return (1-50).' }),
});

export const documentPageSchema = pageSchema(documentSchema, 'DocumentPage');

/** The two upload encodings, for /openapi.json (the route parses them itself). */
export const uploadMultipartSchema = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'The document: .txt, .md, .html or .pdf' }),
    name: z.string().max(200).optional().meta({ description: 'Display name; defaults to the file name' }),
  })
  .meta({ id: 'DocumentUploadMultipart' });

export const uploadJsonSchema = z
  .object({
    name: z.string().min(1).max(200),
    text: z.string().min(1),
    type: z.enum(['text', 'markdown', 'html']).optional().meta({ description: 'Default: text' }),
  })
  .meta({ id: 'DocumentUploadJson' });
