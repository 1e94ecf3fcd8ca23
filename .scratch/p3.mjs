import http from 'node:http'; import net from 'node:net';
const s = http.createServer((q,r)=>r.end('x'));
s.on('clientError', (err, sock) => { console.log(err.code, JSON.stringify(err.rawPacket?.toString())); sock.end('HTTP/1.1 400 X\r\nConnection: close\r\n\r\n'); });
s.listen(0, '127.0.0.1', () => {
  const c = net.connect(s.address().port, '127.0.0.1', () => c.write('FOO /profile?x=1 HTTP/1.1\r\nHost: x\r\n\r\n'));
  c.on('data', d => {}); c.on('close', () => s.close());
});
