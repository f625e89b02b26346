/**
 * Splits streamed LLM text into sentences as soon as each is complete, so speech can start before
 * the answer is finished. A sentence ends at . ! ? … (or a newline) followed by whitespace; a
 * trailing fragment is flushed at the end. Very long runs without punctuation are cut at a space.
 */
export async function* sentencesOf(deltas: AsyncIterable<string>, maxChars = 240): AsyncIterable<string> {
  let buffer = '';
  for await (const delta of deltas) {
    buffer += delta;
    for (;;) {
      const match = /[.!?…]+["')\]]*\s|\n+/.exec(buffer);
      let cut = match === null ? -1 : match.index + match[0].length;
      if (cut < 0 && buffer.length > maxChars) {
        const space = buffer.lastIndexOf(' ', maxChars);
        cut = space > 0 ? space + 1 : maxChars;
      }
      if (cut < 0) break;
      const sentence = buffer.slice(0, cut).trim();
      buffer = buffer.slice(cut);
      if (sentence !== '') yield sentence;
    }
  }
  const rest = buffer.trim();
  if (rest !== '') yield rest;
}
