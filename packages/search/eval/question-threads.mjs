// The thread a question was asked in, as the checks that keep the question sets apart compare it
// (`real-questions.test.ts`, and the bench's `check-new-questions.mjs` for a set being gathered):
// one thread, however its address or id is written, is one thread.

/** An address compared without scheme, `www.`, case, query, fragment or trailing slash. */
export function threadAddress(url) {
  return String(url)
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
}

/** A thread's id compared without case, a pull request's `owner/repo!N` read as `owner/repo#N` (GitHub numbers both alike). */
export function threadId(id) {
  return String(id)
    .trim()
    .toLowerCase()
    .replace(/!(\d+)$/, '#$1');
}

/** The ids a question's thread goes by: its own, and the issue's or pull request's read off a GitHub address. */
export function threadIds(question) {
  const github = threadAddress(question.source).match(
    /^github\.com\/([^/]+\/[^/]+)\/(?:issues|pull|discussions)\/(\d+)/,
  );
  return [threadId(question.id), ...(github ? [`${github[1]}#${github[2]}`] : [])];
}

/** The threads of `questions`: their ids and their addresses, to look a question's up in. */
export function threadsOf(questions) {
  return {
    ids: new Set(questions.flatMap(threadIds)),
    addresses: new Set(questions.map((q) => threadAddress(q.source))),
  };
}

/** Whether `question` was asked in one of `threads` (see `threadsOf`). */
export function askedIn(threads, question) {
  return (
    threadIds(question).some((id) => threads.ids.has(id)) ||
    threads.addresses.has(threadAddress(question.source))
  );
}
