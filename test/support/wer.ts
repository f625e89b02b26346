/**
 * Word error rate: word-level edit distance (substitutions + deletions + insertions) between what
 * was said and what was heard, over the number of words said. Case and punctuation are ignored,
 * digits are read as words ("4" = "four") so recognisers that write numbers are not penalised.
 */
const digits = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\d/g, (d) => ` ${digits[Number(d)]} `)
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
}

export function wordErrors(said: string, heard: string): { errors: number; words: number } {
  const ref = words(said);
  const hyp = words(heard);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const cost = ref[i - 1] === hyp[j - 1] ? 0 : 1;
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = row;
  }
  return { errors: previous[hyp.length]!, words: ref.length };
}

/** WER over several utterances: total errors over total words said. */
export function wordErrorRate(pairs: readonly { said: string; heard: string }[]): number {
  let errors = 0;
  let total = 0;
  for (const { said, heard } of pairs) {
    const e = wordErrors(said, heard);
    errors += e.errors;
    total += e.words;
  }
  return total === 0 ? 0 : errors / total;
}
