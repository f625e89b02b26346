/**
 * Splits extracted text into chunks for retrieval: sentence-aware (Intl.Segmenter), headings kept
 * with the text that follows them, bounded by a token count from the embedding model's tokenizer,
 * neighbouring chunks overlapping by whole sentences. Every chunk is a contiguous slice of the text:
 * `text.slice(chunk.start, chunk.end) === chunk.text`.
 */

export interface ChunkOptions {
  /** Most tokens in a chunk (a heading may add its own few on top). */
  maxTokens: number;
  /** Tokens of trailing sentences repeated at the start of the next chunk of the same section (at most 2 sentences). */
  overlapTokens: number;
  /** Locale for sentence boundaries. */
  locale?: string;
}

export const defaultChunkOptions: ChunkOptions = { maxTokens: 200, overlapTokens: 40 };

export interface TextChunk {
  text: string;
  start: number;
  end: number;
  tokens: number;
}

export type CountTokens = (text: string) => number;

interface Unit {
  start: number;
  end: number;
  tokens: number;
  heading: boolean;
}

const headingLine = /^#{1,6}[ \t]+\S/;
/** Intl.Segmenter holds a copy of its whole input per segment in V8; feed it bounded windows. */
const segmentWindow = 8_000;
const maxOverlapSentences = 2;

/** Trims whitespace off a [start, end) range of `text`; null when nothing is left. */
function trimRange(text: string, start: number, end: number): [number, number] | null {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return start < end ? [start, end] : null;
}

/** Sentence ranges of text[start, end). */
function sentences(text: string, start: number, end: number, segmenter: Intl.Segmenter): [number, number][] {
  const out: [number, number][] = [];
  let pos = start;
  while (pos < end) {
    const windowEnd = Math.min(end, pos + segmentWindow);
    const segs = [...segmenter.segment(text.slice(pos, windowEnd))];
    // The last sentence of a window may be cut off by it: leave it for the next window.
    const keep = windowEnd < end && segs.length > 1 ? segs.length - 1 : segs.length;
    for (let i = 0; i < keep; i++) {
      const s = segs[i]!;
      const r = trimRange(text, pos + s.index, pos + s.index + s.segment.length);
      if (r !== null) out.push(r);
    }
    pos = keep < segs.length ? pos + segs[keep]!.index : windowEnd;
  }
  return out;
}

/** Pieces of one over-long sentence, split between words, each within `max` tokens. */
function splitLong(text: string, start: number, end: number, max: number, count: CountTokens): Unit[] {
  const words = [...text.slice(start, end).matchAll(/\S+/g)].map((m) => ({
    start: start + m.index,
    end: start + m.index + m[0].length,
    tokens: count(m[0]),
  }));
  const out: Unit[] = [];
  let cur: Unit | undefined;
  for (const w of words) {
    if (cur !== undefined && cur.tokens + w.tokens > max) {
      out.push(cur);
      cur = undefined;
    }
    if (cur === undefined) cur = { start: w.start, end: w.end, tokens: w.tokens, heading: false };
    else {
      cur.end = w.end;
      cur.tokens += w.tokens;
    }
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** Headings (Markdown `#` lines) and sentences of the paragraphs between them, in order. */
function units(text: string, count: CountTokens, options: ChunkOptions): Unit[] {
  const segmenter = new Intl.Segmenter(options.locale ?? 'en', { granularity: 'sentence' });
  const out: Unit[] = [];
  const pushSentences = (from: number, to: number) => {
    for (const [s, e] of sentences(text, from, to, segmenter)) {
      const tokens = count(text.slice(s, e));
      if (tokens > options.maxTokens) out.push(...splitLong(text, s, e, options.maxTokens, count));
      else out.push({ start: s, end: e, tokens, heading: false });
    }
  };
  let paragraphStart = -1;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const blank = line.trim() === '';
    const heading = headingLine.test(line);
    if ((blank || heading) && paragraphStart !== -1) {
      pushSentences(paragraphStart, lineStart);
      paragraphStart = -1;
    }
    if (heading) {
      const r = trimRange(text, lineStart, lineEnd)!;
      out.push({ start: r[0], end: r[1], tokens: count(text.slice(r[0], r[1])), heading: true });
    } else if (!blank && paragraphStart === -1) paragraphStart = lineStart;
    lineStart = lineEnd + 1;
  }
  if (paragraphStart !== -1) pushSentences(paragraphStart, text.length);
  return out;
}

export function chunkText(text: string, count: CountTokens, options: ChunkOptions = defaultChunkOptions): TextChunk[] {
  const chunks: TextChunk[] = [];
  let cur: Unit[] = [];
  /** Units in `cur` not already emitted in the previous chunk (overlap units are not fresh). */
  let fresh = 0;
  const tokensOf = (us: Unit[]) => us.reduce((n, u) => n + u.tokens, 0);
  const emit = () => {
    if (fresh > 0) {
      const start = cur[0]!.start;
      const end = cur[cur.length - 1]!.end;
      chunks.push({ text: text.slice(start, end), start, end, tokens: tokensOf(cur) });
    }
  };
  for (const unit of units(text, count, options)) {
    const hasBody = cur.some((u) => !u.heading);
    if (unit.heading && hasBody) {
      // A heading opens a new chunk: the section before it ends here, without overlap.
      emit();
      cur = [];
      fresh = 0;
    } else if (!unit.heading && hasBody && tokensOf(cur) + unit.tokens > options.maxTokens) {
      if (fresh > 0) {
        emit();
        // Carry the last sentences (at most 2, within overlapTokens) into the next chunk.
        const carried: Unit[] = [];
        for (let i = cur.length - 1; i >= 0 && carried.length < maxOverlapSentences; i--) {
          const u = cur[i]!;
          if (u.heading || tokensOf(carried) + u.tokens > options.overlapTokens) break;
          carried.unshift(u);
        }
        cur = carried;
        fresh = 0;
      }
      // Make room for the new sentence by dropping carried sentences from the front.
      while (cur.length > 0 && !cur[0]!.heading && tokensOf(cur) + unit.tokens > options.maxTokens) cur.shift();
    }
    cur.push(unit);
    fresh++;
  }
  emit();
  return chunks;
}
