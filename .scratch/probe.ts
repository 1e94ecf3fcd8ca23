import { startTestServer } from '../test/helpers.js';
import { WebClient } from '../test/web-client.js';
import net from 'node:net';
const s = await startTestServer({ config: { } });
await s.app.listen({ port: 0, host: '127.0.0.1' });
const port = (s.app.server.address() as net.AddressInfo).port;
async function raw(req: string) {
  return new Promise<string>((res) => {
    const c = net.connect(port, '127.0.0.1', () => c.write(req));
    let b = ''; c.on('data', (d) => (b += d)); c.on('end', () => res(b)); c.on('close', () => res(b));
    setTimeout(() => { c.destroy(); res(b); }, 1000);
  });
}
for (const m of ['QUERY', 'FOO', 'PROPFIND', 'TRACE', 'POST', 'GET']) {
  for (const p of ['/ws/v2.0/games', '/profile', '/login', '/nope', '/healthz', '/ws/v2.0/nope']) {
    const r = await raw(`${m} ${p} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab`);
    console.log(m, p, r.split('\r\n\r\n')[0].replace(/\r\n/g, ' | ').slice(0, 300), '::', r.split('\r\n\r\n')[1]?.slice(0, 120));
  }
}
const w = new WebClient(s);
const { createUser } = await import('../src/domain/users.js');
await w.register('bob', 'correct horse battery');
await w.post('/logout', {});
const r = await w.signIn('bob', 'correct horse battery', '/profile\u3002x');
console.log(r.status, r.headers['content-type'], r.text.slice(0, 200));
const nf = await w.get('//evil.example/x');
console.log(nf.status, /href="[^"]*evil[^"]*"/.exec(nf.text)?.[0]);
await s.app.close(); await s.close();
