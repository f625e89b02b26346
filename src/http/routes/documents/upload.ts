import type { Context } from 'koa';
import multer from 'multer';
import type {} from 'multer';
import { AppError, ValidationError, type FieldProblem } from '../../../errors/app-errors.js';
import { documentTextUploadSchema } from '../../../schemas/document.js';
import { detectType } from '../../../rag/extract.js';
import type { DocumentUpload } from '../../../rag/rag-service.js';

function tooLarge(limit: number): AppError {
  return new AppError(413, 'payload_too_large', `the document is larger than the upload limit of ${limit} bytes`, {
    limit_bytes: limit,
  });
}

const multerMessages: Record<string, string> = {
  LIMIT_UNEXPECTED_FILE: 'send the document in the form field `file` (one file)',
  LIMIT_FILE_COUNT: 'send one file per request',
  LIMIT_PART_COUNT: 'too many form parts',
  LIMIT_FIELD_COUNT: 'too many form fields',
  LIMIT_FIELD_KEY: 'form field name too long',
  LIMIT_FIELD_VALUE: 'form field value too long',
};

/** Reads a multipart/form-data upload (field `file`, optional `name`) into memory, within the limit. */
async function readMultipart(ctx: Context, limit: number): Promise<DocumentUpload> {
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: limit, files: 1, fields: 4, parts: 5, fieldSize: 4096 },
  }).single('file');
  try {
    await new Promise<void>((resolve, reject) => {
      parse(ctx.req as never, ctx.res as never, (err: unknown) => (err ? reject(err) : resolve()));
    });
  } catch (err) {
    if (err instanceof multer.MulterError) {
      if (err.code === 'LIMIT_FILE_SIZE') throw tooLarge(limit);
      throw new AppError(400, 'invalid_upload', multerMessages[err.code] ?? err.message);
    }
    throw new AppError(
      400,
      'invalid_upload',
      `the multipart body cannot be read: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const req = ctx.req as typeof ctx.req & { file?: Express.Multer.File; body?: Record<string, unknown> };
  const file = req.file;
  const given = typeof req.body?.['name'] === 'string' ? req.body['name'].trim() : '';
  const name = (given || file?.originalname || '').trim();
  // Every problem at once: a missing file does not hide a bad name.
  const problems: FieldProblem[] = [];
  if (file === undefined) problems.push({ path: 'body.file', message: 'required: the document as form field `file`' });
  if (name === '' && file !== undefined)
    problems.push({ path: 'body.name', message: 'required when the file has no name' });
  if (name.length > 200) problems.push({ path: 'body.name', message: 'at most 200 characters' });
  if (file === undefined || problems.length > 0) throw new ValidationError(problems);
  return { name, type: detectType(file.mimetype, file.originalname), raw: file.buffer };
}

/** A JSON upload `{name, text, type?}` (already parsed by the JSON body parser, within its own limit). */
function readJson(ctx: Context, limit: number): DocumentUpload {
  const parsed = documentTextUploadSchema.safeParse(ctx.request.body ?? {});
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) => ({ path: `body.${key}`, message: 'unknown field' }))
          : [{ path: ['body', ...issue.path.map(String)].join('.'), message: issue.message }],
      ),
    );
  }
  const raw = Buffer.from(parsed.data.text, 'utf8');
  if (raw.length > limit) throw tooLarge(limit);
  return { name: parsed.data.name, type: parsed.data.type, raw };
}

/**
 * The upload of POST /agents/{id}/documents: multipart/form-data (a file) or application/json
 * (`name`, `text`, optional `type`). A declared Content-Length over the limit is refused before
 * reading; anything else is 415.
 */
export async function readUpload(ctx: Context, limit: number): Promise<DocumentUpload> {
  if (ctx.is('multipart/form-data')) {
    const declared = Number(ctx.get('Content-Length') || 0);
    // Form framing adds a few hundred bytes around the file.
    if (declared > limit + 64 * 1024) throw tooLarge(limit);
    return readMultipart(ctx, limit);
  }
  if (ctx.is('application/json') && ctx.request.rawBody !== undefined) return readJson(ctx, limit);
  throw new AppError(
    415,
    'unsupported_media_type',
    'send the document as multipart/form-data (field `file`) or as application/json {name, text}',
  );
}
