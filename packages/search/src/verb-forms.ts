/**
 * A verb's -ing form read as the verb ("batch DELETING 1 record", "doesn't seem to be UPDATING
 * the table", "UPDATING the example to use upsert"): people and commit titles say what is done
 * that way as often as in the bare verb.
 */

// Verbs whose -ing form is as often a noun or says what happens to the asker rather than what
// the request asks: a listing, a setting, a recording, a posting; "I'm GETTING an error",
// "SEEING occasional time-outs", "are you PLANNING to add …", "TRYING to".
const NOT_ASKED = new Set(
  (
    'get see show open read view check display inspect detail details pull set start plan log ' +
    'record report draft list register schedule find request export mark share post comment reply ' +
    'upload note invite build give put tell'
  ).split(' '),
);

/** The verb of `word` if it is the -ing form of one `isVerb` knows ("updating" → update). */
export function gerundVerb(word: string, isVerb: (verb: string) => boolean): string | undefined {
  if (!/^[a-z]{3,}ing$/.test(word)) return undefined;
  const stem = word.slice(0, -3);
  // "creating" → create, "sending" → send, "dropping" → drop.
  const candidates = [stem, `${stem}e`, /([b-df-hj-np-tv-z])\1$/.test(stem) ? stem.slice(0, -1) : ''];
  return candidates.find((v) => v !== '' && !NOT_ASKED.has(v) && isVerb(v));
}

// An operation named by its noun ("batch record CREATION", "support for bulk DELETION"), as
// feature requests and commit titles name what a library should do.
const NOMINAL: Record<string, string> = {
  creation: 'create',
  insertion: 'insert',
  deletion: 'delete',
  removal: 'remove',
  modification: 'modify',
  retrieval: 'retrieve',
};

/** The verb whose noun `word` is ("deletion" → delete). */
export const nominalVerb = (word: string): string | undefined => NOMINAL[word];
