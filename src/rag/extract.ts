import { extname } from 'node:path';
import { htmlToText, type FormatCallback } from 'html-to-text';
import { extractText, getDocumentProxy } from 'unpdf';
import { AppError } from '../errors/app-errors.js';
import type { DocumentType } from '../schemas/document.js';

/** Why a document cannot be ingested; `status` says what the upload answers (400 or 415). */
export class DocumentError extends AppError {
  constructor(status: 400 | 415, code: string, message: string) {
    super(status, code, message);
  }
}

const byContentType: Record<string, DocumentType> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
};

const byExtension: Record<string, DocumentType> = {
  '.txt': 'text',
  '.text': 'text',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
};

/** Content types that say nothing about the format; the file name decides then. */
const generic = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/x-download']);

export const supportedFormats = 'plain text (.txt), Markdown (.md), HTML (.html) and PDF (.pdf)';

/**
 * The document type from the part's content type and file name: a known extension wins (browsers
 * send `text/plain` for .md files), then a known content type; anything else is 415.
 */
export function detectType(contentType: string | undefined, fileName: string | undefined): DocumentType {
  const ext = fileName === undefined ? '' : extname(fileName).toLowerCase();
  const fromExt = byExtension[ext];
  if (fromExt !== undefined) return fromExt;
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const fromMime = byContentType[mime];
  if (fromMime !== undefined) return fromMime;
  if (generic.has(mime) && ext === '') {
    throw new DocumentError(
      415,
      'unsupported_media_type',
      `cannot tell the format without a file extension; supported: ${supportedFormats}`,
    );
  }
  throw new DocumentError(
    415,
    'unsupported_media_type',
    `unsupported document format${ext ? ` ${ext}` : ''}${mime ? ` (${mime})` : ''}; supported: ${supportedFormats}`,
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Text content as a string; 400 when it is not UTF-8 text (binary data under a text name). */
function decodeText(raw: Buffer): string {
  let s: string;
  try {
    s = utf8.decode(raw);
  } catch {
    throw new DocumentError(400, 'unreadable_document', 'the file is not UTF-8 text');
  }
  if (s.includes('\u0000')) throw new DocumentError(400, 'unreadable_document', 'the file is binary, not text');
  return s;
}

/**
 * Checks on the request path, cheap and without extracting: not empty, text types decode as UTF-8,
 * a PDF has the PDF signature and opens. Throws DocumentError (400) otherwise.
 */
export async function verifyDocument(type: DocumentType, raw: Buffer): Promise<void> {
  if (raw.length === 0) throw new DocumentError(400, 'empty_document', 'the document is empty');
  if (type === 'pdf') {
    if (raw.subarray(0, 1024).indexOf('%PDF-') === -1)
      throw new DocumentError(400, 'unreadable_document', 'the file is not a PDF (no %PDF- signature)');
    try {
      const pdf = await getDocumentProxy(new Uint8Array(raw));
      const pages = pdf.numPages;
      await pdf.destroy();
      if (pages === 0) throw new Error('no pages');
    } catch (err) {
      throw new DocumentError(
        400,
        'unreadable_document',
        `the PDF cannot be read: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return;
  }
  if (decodeText(raw).trim() === '') throw new DocumentError(400, 'empty_document', 'the document has no text');
}

/** `<h1>`…`<h6>` as Markdown headings, so the chunker keeps them with the text that follows. */
const markdownHeading: FormatCallback = (elem, walk, builder) => {
  const level = Number(/^h([1-6])$/i.exec(elem.name ?? '')?.[1] ?? 1);
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addInline(`${'#'.repeat(level)} `);
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

function htmlText(html: string): string {
  return htmlToText(html, {
    wordwrap: false,
    formatters: { markdownHeading },
    selectors: [
      ...[1, 2, 3, 4, 5, 6].map((n) => ({ selector: `h${n}`, format: 'markdownHeading' })),
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'nav', format: 'skip' },
    ],
  });
}

/** Normalises line ends and trims trailing spaces, so offsets are stable and chunks clean. */
function normalise(s: string): string {
  return s
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The document's text: plain text and Markdown as written (Markdown headings are what the chunker
 * looks for), HTML through html-to-text (headings as `#` lines, links without URLs, no scripts),
 * PDF through unpdf (pdf.js), pages separated by a blank line. Throws DocumentError (400) when no
 * text comes out (an empty or scanned PDF).
 */
export async function extractDocumentText(type: DocumentType, raw: Buffer): Promise<string> {
  let out: string;
  switch (type) {
    case 'text':
    case 'markdown':
      out = decodeText(raw);
      break;
    case 'html':
      out = htmlText(decodeText(raw));
      break;
    case 'pdf': {
      let pages: string[];
      try {
        const pdf = await getDocumentProxy(new Uint8Array(raw));
        pages = (await extractText(pdf, { mergePages: false })).text;
        await pdf.destroy();
      } catch (err) {
        throw new DocumentError(
          400,
          'unreadable_document',
          `the PDF cannot be read: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      out = pages.join('\n\n');
      break;
    }
  }
  const text = normalise(out);
  if (text === '')
    throw new DocumentError(
      400,
      'empty_document',
      type === 'pdf' ? 'the PDF has no extractable text (scanned images need OCR first)' : 'the document has no text',
    );
  return text;
}
