import { decimalValue, JSON_NUMBER } from './exact-numbers.js';
import { scanJson } from './json-scan.js';

/**
 * A tool's result is the vendor's answer, and JSON.parse changes some of its numbers: an id
 * past 2^53 (`12345678901234567891` became 12345678901234567000), a decimal longer than a
 * double keeps (`0.1000000000000000055511151231257827` became 0.1), one past a double's range
 * (`1e400` became Infinity, written as `null`). The agent read another id than the vendor sent.
 *
 * Such a number is kept as the string of its literal, on every Node version: the agent reads
 * its digits in the result (`"12345678901234567891"`), an embedder gets that string, and each
 * copy of an answer the host writes and reads back (a stored outcome replayed, a result over
 * the budget, a message relayed between replicas) keeps it. JSON.rawJSON (Node 22 and up) would
 * write it unquoted, but every one of those readers would round it again, and Node 20 has none.
 */

const INTEGER = /^-?\d+$/;
// A literal followed by a colon is a key, which JSON does not allow unquoted: left as it is,
// so that invalid JSON stays invalid.
const BEFORE_COLON = /[ \t\n\r]*:/y;

/** Whether JSON.parse reads `literal` as another number: not finite, or its shortest decimal another. */
function changedByParse(literal: string): boolean {
  const n = Number(literal);
  const read = String(n);
  // Most are their double's text (`0.30000000000000004`).
  if (read === literal) return false;
  if (!Number.isFinite(n)) return true;
  // An integer under 1e21 is written out in full: another text is another number.
  if (INTEGER.test(literal) && Math.abs(n) < 1e21) return true;
  const written = decimalValue(literal);
  // Up to 17 significant digits, a fraction is a double's (serializers that write 17 digits,
  // `19.989999999999998`, mean the double 19.99): kept a number, or a field's type would
  // depend on its value. Beyond, it is a decimal a double cannot hold (`0.1000000000000000055511`).
  if (n !== 0 && !INTEGER.test(literal) && written.split('e')[0]!.replace('-', '').length <= 17) return false;
  return written !== decimalValue(read);
}

function keptAsWritten(text: string, literal: string, at: number): boolean {
  if (!changedByParse(literal) || !JSON_NUMBER.test(literal)) return false;
  BEFORE_COLON.lastIndex = at + literal.length;
  return !BEFORE_COLON.test(text);
}

/**
 * Parses an upstream's JSON answer as JSON.parse does (and throws where it throws), but each
 * number a double would change comes back as the string of the literal the vendor wrote.
 * Where arrays and objects nest deeper than `maxDepth`, throws a RangeError without parsing:
 * the same pass over the text finds both.
 */
export function parseAnswerJson(text: string, maxDepth = Number.POSITIVE_INFINITY): unknown {
  let quoted = '';
  let from = 0;
  const within = scanJson(text, maxDepth, (literal, at) => {
    if (keptAsWritten(text, literal, at)) {
      quoted += `${text.slice(from, at)}"${literal}"`;
      from = at + literal.length;
    }
    return false;
  });
  if (!within) throw new RangeError(`The JSON nests more than ${maxDepth} levels deep.`);
  return JSON.parse(from === 0 ? text : quoted + text.slice(from));
}
