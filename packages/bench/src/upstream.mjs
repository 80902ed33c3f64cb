// The loopback upstream every measured path calls: one fixed small JSON answer (and, under
// /big/bytes-<N>, a large one), keep-alive, nothing recorded (so it neither grows nor costs
// more over a long run). Prints its port.
import { createServer } from 'node:http';
import { bigBody } from './big-body.mjs';

const BODY = JSON.stringify({
  results: [{ name: 'pe1234_signup', label: 'Signup', objectTypeId: '0-1' }],
  paging: null,
});
const HEADERS = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) };

// /big/bytes-<N>: a large body of about N bytes, built once per size, for the result-size phase.
/** @type {Map<number, { body: string, headers: Record<string, string | number> }>} */
const big = new Map();
/** @param {number} bytes */
function bigAnswer(bytes) {
  let answer = big.get(bytes);
  if (!answer) {
    const body = bigBody(bytes);
    answer = {
      body,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    };
    big.set(bytes, answer);
  }
  return answer;
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const m = /^\/big\/bytes-(\d+)/.exec(req.url ?? '');
    const answer = m ? bigAnswer(Number(m[1])) : { body: BODY, headers: HEADERS };
    res.writeHead(200, answer.headers);
    res.end(answer.body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${/** @type {import('node:net').AddressInfo} */ (server.address()).port}\n`);
});
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
