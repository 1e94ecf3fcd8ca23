// The bare baseline: node:http answering fixed bytes on every request, nothing else. Started by
// bench/run.ts on the same core as cardbazaar, so the ratio measures our whole request path.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

// The body comes base64 in the argument, or as `@file` (one argument may hold at most 128 KB).
const [port, contentType, bodyArg] = process.argv.slice(2);
const body = bodyArg.startsWith('@') ? readFileSync(bodyArg.slice(1)) : Buffer.from(bodyArg, 'base64');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
