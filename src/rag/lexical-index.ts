import MiniSearch from 'minisearch';

const stopWords = new Set(
  'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

/** MiniSearch's tokenizer (Unicode spaces and punctuation). */
const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** Lowercased terms without common English stop words. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return t.length === 0 || stopWords.has(t) ? null : t;
}

/** BM25+ parameters, MiniSearch's defaults. */
const k1 = 1.2;
const b = 0.7;
const delta = 0.5;

interface Postings {
  /** Slots of the chunks holding the term (removed ones included until compaction), ascending. */
  slots: number[];
  /** The term's frequency in each of those chunks. */
  tfs: number[];
  /** Live chunks holding the term. */
  df: number;
}

export interface LexicalHit {
  key: number;
  score: number;
}

/**
 * BM25 over chunk texts, scored as MiniSearch scores them (its tokenizer, BM25+ with k = 1.2,
 * b = 0.7, d = 0.5, field length in distinct tokens, the sum multiplied by the number of query
 * terms matched), with postings in flat arrays and only the best `n` hits kept. MiniSearch
 * itself builds an object per matching chunk and sorts them all: at 100k chunks a query of five
 * common words matches tens of thousands, and that took ~30 ms where this takes well under one.
 *
 * Removal marks the chunk's slot dead and lowers the counts at once; postings are compacted when
 * dead slots outnumber live ones.
 */
export class LexicalIndex {
  private readonly terms = new Map<string, Postings>();
  private keys: number[] = [];
  private lengths: number[] = [];
  private alive: boolean[] = [];
  /** The distinct terms of each slot (to lower their counts on removal). */
  private slotTerms: string[][] = [];
  private readonly slotOf = new Map<number, number>();
  private totalLength = 0;
  private dead = 0;
  /** Per-slot scratch for one search. */
  private scores = new Float64Array(0);
  private matched = new Uint8Array(0);

  get size(): number {
    return this.slotOf.size;
  }

  add(key: number, text: string): void {
    if (this.slotOf.has(key)) this.remove([key]);
    const tokens = tokenize(text);
    const slot = this.keys.length;
    const counts = new Map<string, number>();
    for (const token of tokens) {
      const term = processTerm(token);
      if (term !== null) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    for (const [term, tf] of counts) {
      let p = this.terms.get(term);
      if (p === undefined) this.terms.set(term, (p = { slots: [], tfs: [], df: 0 }));
      p.slots.push(slot);
      p.tfs.push(tf);
      p.df++;
    }
    const length = new Set(tokens).size;
    this.keys.push(key);
    this.lengths.push(length);
    this.alive.push(true);
    this.slotTerms.push([...counts.keys()]);
    this.slotOf.set(key, slot);
    this.totalLength += length;
  }

  remove(keys: Iterable<number>): void {
    for (const key of keys) {
      const slot = this.slotOf.get(key);
      if (slot === undefined) continue;
      this.slotOf.delete(key);
      this.alive[slot] = false;
      this.totalLength -= this.lengths[slot]!;
      for (const term of this.slotTerms[slot]!) {
        const p = this.terms.get(term)!;
        if (--p.df === 0) this.terms.delete(term);
      }
      this.slotTerms[slot] = [];
      this.dead++;
    }
    if (this.dead > this.slotOf.size) this.compact();
  }

  /** The `n` best chunks for `query`, best first; ties in insertion order. */
  search(query: string, n: number): LexicalHit[] {
    const count = this.slotOf.size;
    if (count === 0 || n <= 0) return [];
    const queryTerms = new Set<string>();
    for (const token of tokenize(query)) {
      const term = processTerm(token);
      if (term !== null && this.terms.has(term)) queryTerms.add(term);
    }
    if (queryTerms.size === 0) return [];
    if (this.scores.length < this.keys.length) {
      this.scores = new Float64Array(this.keys.length * 2);
      this.matched = new Uint8Array(this.keys.length * 2);
    }
    const { scores, matched, lengths, alive } = this;
    const avgLength = this.totalLength / count;
    const touched: number[] = [];
    for (const term of queryTerms) {
      const p = this.terms.get(term)!;
      const idf = Math.log(1 + (count - p.df + 0.5) / (p.df + 0.5));
      const { slots, tfs } = p;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (!alive[slot]) continue;
        const tf = tfs[i]!;
        const s = idf * (delta + (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[slot]!) / avgLength)));
        if (matched[slot] === 0) touched.push(slot);
        scores[slot] = scores[slot]! + s;
        matched[slot] = matched[slot]! + 1;
      }
    }
    // Keep the n best (score × terms matched) in a small sorted buffer; ties in slot (insertion) order.
    const best: { slot: number; score: number }[] = [];
    const before = (score: number, slot: number, other: { slot: number; score: number }): boolean =>
      score > other.score || (score === other.score && slot < other.slot);
    for (const slot of touched) {
      const score = scores[slot]! * matched[slot]!;
      scores[slot] = 0;
      matched[slot] = 0;
      if (best.length === n && !before(score, slot, best[n - 1]!)) continue;
      let i = best.length === n ? n - 1 : best.length;
      while (i > 0 && before(score, slot, best[i - 1]!)) {
        best[i] = best[i - 1]!;
        i--;
      }
      best[i] = { slot, score };
    }
    return best.map(({ slot, score }) => ({ key: this.keys[slot]!, score }));
  }

  /** Drops dead slots from every list. */
  private compact(): void {
    const next = new Int32Array(this.keys.length).fill(-1);
    const keys: number[] = [];
    const lengths: number[] = [];
    const slotTerms: string[][] = [];
    this.keys.forEach((key, slot) => {
      if (!this.alive[slot]) return;
      next[slot] = keys.length;
      this.slotOf.set(key, keys.length);
      keys.push(key);
      lengths.push(this.lengths[slot]!);
      slotTerms.push(this.slotTerms[slot]!);
    });
    for (const p of this.terms.values()) {
      const slots: number[] = [];
      const tfs: number[] = [];
      p.slots.forEach((slot, i) => {
        if (next[slot]! < 0) return;
        slots.push(next[slot]!);
        tfs.push(p.tfs[i]!);
      });
      p.slots = slots;
      p.tfs = tfs;
    }
    this.keys = keys;
    this.lengths = lengths;
    this.slotTerms = slotTerms;
    this.alive = keys.map(() => true);
    this.dead = 0;
  }
}
