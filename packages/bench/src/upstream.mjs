// The loopback upstream every measured path calls: one fixed small JSON answer, keep-alive,
// nothing recorded (so it neither grows nor costs more over a long run). Prints its port.
import { createServer } from 'node:http';

const BODY = JSON.stringify({
  results: [{ name: 'pe1234_signup', label: 'Signup', objectTypeId: '0-1' }],
  paging: null,
});
const HEADERS = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) };

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
