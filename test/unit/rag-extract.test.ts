import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DocumentError, detectType, extractDocumentText, verifyDocument } from '../../src/rag/extract.js';
import { buildPdf } from '../fixtures/rag/make-pdf.js';

const corpus = (name: string) => readFileSync(new URL(`../fixtures/rag/corpus/${name}`, import.meta.url));

describe('detectType', () => {
  it('knows the four formats by extension and by content type', () => {
    expect(detectType('text/plain', 'notes.txt')).toBe('text');
    expect(detectType('text/plain', 'README.md')).toBe('markdown');
    expect(detectType('application/octet-stream', 'page.HTM')).toBe('html');
    expect(detectType('application/pdf', 'report')).toBe('pdf');
    expect(detectType('text/markdown; charset=utf-8', undefined)).toBe('markdown');
    expect(detectType('text/html', 'x')).toBe('html');
  });
  it('refuses other formats with 415', () => {
    for (const [type, name] of [
      ['image/png', 'photo.png'],
      ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'letter.docx'],
      ['application/octet-stream', 'blob'],
    ] as const) {
      const err = (() => {
        try {
          detectType(type, name);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(DocumentError);
      expect((err as DocumentError).status).toBe(415);
    }
  });
});

describe('extractDocumentText', () => {
  it('reads plain text as written', async () => {
    const text = await extractDocumentText('text', corpus('sourdough.txt'));
    expect(text.startsWith('Baking sourdough bread\n\nA sourdough starter')).toBe(true);
    expect(text).toContain('equal weights of flour and water');
  });

  it('keeps Markdown headings as # lines', async () => {
    const text = await extractDocumentText('markdown', corpus('lighthouses.md'));
    expect(text).toContain('## The Fresnel lens\n\nEarly lighthouses');
  });

  it('turns HTML into text with headings as # lines, without scripts, styles, navigation or URLs', async () => {
    const text = await extractDocumentText('html', corpus('beekeeping.html'));
    expect(text.startsWith('# Beekeeping basics\n\nA honeybee colony')).toBe(true);
    expect(text).toContain(
      '## The waggle dance\n\nForager bees tell their sisters where to find flowers with the waggle dance.',
    );
    expect(text).not.toContain('console.log');
    expect(text).not.toContain('font-family');
    expect(text).not.toContain('Home');
  });

  it('extracts the text of every PDF page', async () => {
    const raw = corpus('glaciers.pdf');
    await verifyDocument('pdf', raw);
    const text = await extractDocumentText('pdf', raw);
    expect(text).toContain('A moraine is a ridge of rock debris that a glacier pushes ahead or leaves behind.');
    expect(text).toContain('Meltwater from glaciers feeds rivers');
  });

  it('fails a PDF without text and binary data posing as text', async () => {
    await expect(extractDocumentText('pdf', buildPdf([[]]))).rejects.toMatchObject({
      status: 400,
      code: 'empty_document',
    });
    await expect(extractDocumentText('text', Buffer.from([0xff, 0xfe, 0x00, 0x41]))).rejects.toMatchObject({
      status: 400,
      code: 'unreadable_document',
    });
  });
});

describe('verifyDocument', () => {
  it('refuses empty, whitespace-only, non-PDF and corrupt PDF uploads with 400', async () => {
    await expect(verifyDocument('text', Buffer.alloc(0))).rejects.toMatchObject({
      status: 400,
      code: 'empty_document',
    });
    await expect(verifyDocument('markdown', Buffer.from(' \n\t '))).rejects.toMatchObject({
      status: 400,
      code: 'empty_document',
    });
    await expect(verifyDocument('pdf', Buffer.from('just text'))).rejects.toMatchObject({
      status: 400,
      code: 'unreadable_document',
    });
    await expect(verifyDocument('pdf', Buffer.from('%PDF-1.4\ngarbage without objects'))).rejects.toMatchObject({
      status: 400,
      code: 'unreadable_document',
    });
    await expect(verifyDocument('text', Buffer.from('\u0000\u0001binary'))).rejects.toMatchObject({ status: 400 });
  });
});
