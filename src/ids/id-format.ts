/**
 * What a record id looks like, apart from making one (new-id.ts, which needs Node's crypto): the
 * record schemas check ids with this, so the panel can take its types from them without Node.
 */

/** Record id prefixes (DESIGN.md): sortable by creation time, 80 random bits, unguessable. */
export const idPrefixes = {
  agent: 'agt',
  preset: 'pre',
  session: 'ses',
  conversation: 'cnv',
  message: 'msg',
  error: 'err',
  document: 'doc',
  event: 'evt',
  agent_test: 'tst',
  test_run: 'trn',
} as const;

export type IdKind = keyof typeof idPrefixes;

const idPattern = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(idPrefixes[kind] + '_') && idPattern.test(value);
}
