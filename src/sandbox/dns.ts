import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { getServers } from 'node:dns';
import { isIP, connect, createServer, type Server as TcpServer, type Socket } from 'node:net';
import * as dnsPacket from 'dns-packet';

/**
 * `cardbazaar dns` (README, "Clients with the live host built in"): a small resolver for machines
 * and containers whose clients have the live host built in. It answers A and AAAA for the live
 * hosts with the sandbox's address, and passes every other question, as it came, to an upstream
 * resolver and its answer back as it came. UDP and TCP (a client retries over TCP when an answer was
 * truncated), on one port. Packets are read and written with `dns-packet`.
 */

export interface Upstream {
  address: string;
  port: number;
}

export interface DnsOptions {
  /** Where to listen (an IPv4 or IPv6 address). */
  listen: string;
  /** 53 for a resolver the system or Docker can use; 0: any free port. */
  port: number;
  /** The names answered here, any case. */
  names: readonly string[];
  /** The addresses they resolve to: IPv4 ones answer A, IPv6 ones AAAA. */
  addresses: readonly string[];
  upstream: Upstream;
  /** How long to wait for the upstream's answer before answering SERVFAIL. */
  upstreamTimeoutMs?: number;
  /** Told of each question answered here or passed on. */
  onQuestion?: (question: { name: string; type: string; answered: 'here' | 'upstream' | 'failed' }) => void;
}

export interface DnsServer {
  address: string;
  port: number;
  close(): Promise<void>;
}

/** How long the answers for the live hosts may be cached: short, so that moving the sandbox is seen soon. */
const TTL_SECONDS = 60;
const RCODE_FORMERR = 1;
const RCODE_SERVFAIL = 2;

/** `1.2.3.4`, `1.2.3.4:5353`, `::1`, `[::1]:5353` → address and port (53 when none). */
export function parseUpstream(text: string): Upstream {
  const t = text.trim();
  let address = t;
  let port = 53;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  const v4 = /^([^:]+):(\d+)$/.exec(t);
  if (bracketed) {
    address = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
  } else if (v4) {
    address = v4[1]!;
    port = Number(v4[2]);
  }
  if (isIP(address) === 0) throw new Error(`"${text}" is not an address (ADDR or ADDR:PORT, [IPv6]:PORT).`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`"${text}" has no valid port.`);
  return { address, port };
}

/** The first resolver the system uses (`/etc/resolv.conf` on Linux), as Node reads it. */
export function systemUpstream(): Upstream | undefined {
  const first = getServers()[0];
  return first === undefined ? undefined : parseUpstream(first);
}

export async function startDns(options: DnsOptions): Promise<DnsServer> {
  if (isIP(options.listen) === 0) throw new Error(`"${options.listen}" is not an address to listen on.`);
  const names = new Set(options.names.map((n) => n.toLowerCase().replace(/\.$/, '')));
  const v4 = options.addresses.filter((a) => isIP(a) === 4);
  const v6 = options.addresses.filter((a) => isIP(a) === 6);
  const timeout = options.upstreamTimeoutMs ?? 3000;
  const notify = options.onQuestion ?? (() => {});

  /** The answer to one query; undefined: nothing to send (not a DNS message at all). */
  const answer = async (query: Buffer, over: 'udp' | 'tcp'): Promise<Buffer | undefined> => {
    let packet: dnsPacket.DecodedPacket;
    try {
      packet = dnsPacket.decode(query);
    } catch {
      return query.length >= 2 ? failure(query.readUInt16BE(0), RCODE_FORMERR) : undefined;
    }
    const question = packet.questions?.[0];
    const name = question?.name.toLowerCase().replace(/\.$/, '') ?? '';
    if (packet.type === 'query' && packet.questions?.length === 1 && question && names.has(name)) {
      notify({ name, type: question.type, answered: 'here' });
      return dnsPacket.encode({
        type: 'response',
        id: packet.id,
        // Authoritative for these names; recursion offered for the rest. The rest of the flags
        // (RD, CD) as asked.
        flags:
          dnsPacket.AUTHORITATIVE_ANSWER |
          dnsPacket.RECURSION_AVAILABLE |
          ((packet.flags ?? 0) & (dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED)),
        questions: [question],
        // No address of a family: an empty answer (NODATA), so the client uses the other family.
        answers: [
          ...(question.type === 'A' ? v4 : []).map((data) => ({
            type: 'A' as const,
            name: question.name,
            ttl: TTL_SECONDS,
            data,
          })),
          ...(question.type === 'AAAA' ? v6 : []).map((data) => ({
            type: 'AAAA' as const,
            name: question.name,
            ttl: TTL_SECONDS,
            data,
          })),
        ],
      });
    }
    try {
      const reply = await (over === 'udp' ? askUdp : askTcp)(options.upstream, query, timeout);
      notify({ name, type: question?.type ?? '?', answered: 'upstream' });
      return reply;
    } catch {
      notify({ name, type: question?.type ?? '?', answered: 'failed' });
      return failure(packet.id ?? 0, RCODE_SERVFAIL, packet.questions);
    }
  };

  const connections = new Set<Socket>();
  // One port for both: a free UDP port may be taken for TCP; with port 0, another is tried.
  for (let attempt = 1; ; attempt++) {
    const udp = createSocket(isIP(options.listen) === 6 ? 'udp6' : 'udp4');
    udp.on('message', (message: Buffer, from: RemoteInfo) => {
      void answer(message, 'udp').then((reply) => {
        if (reply) udp.send(reply, from.port, from.address);
      });
    });
    udp.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind({ address: options.listen, port: options.port }, () => {
        udp.off('error', reject);
        resolve();
      });
    });
    const port = udp.address().port;
    const tcp = createServer((socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
      serveTcp(socket, (query) => answer(query, 'tcp'));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen({ host: options.listen, port }, () => {
          tcp.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      udp.close();
      if (options.port === 0 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      throw err;
    }
    return {
      address: options.listen,
      port,
      close: () => closeBoth(udp, tcp, connections),
    };
  }
}

async function closeBoth(udp: UdpSocket, tcp: TcpServer, connections: Set<Socket>): Promise<void> {
  await Promise.all([
    new Promise<void>((resolve) => udp.close(() => resolve())),
    new Promise<void>((resolve) => {
      tcp.close(() => resolve());
      // Connections kept open by clients are not waited for.
      for (const socket of connections) socket.destroy();
    }),
  ]);
}

/** A response carrying only a status (FORMERR, SERVFAIL), for the query's id (and question, when read). */
function failure(id: number, rcode: number, questions?: dnsPacket.Question[]): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id,
    flags: dnsPacket.RECURSION_AVAILABLE | rcode,
    questions: questions ?? [],
  });
}

/** DNS over TCP: each message after its two-byte length (RFC 1035 §4.2.2), answered in turn. */
function serveTcp(socket: Socket, answer: (query: Buffer) => Promise<Buffer | undefined>): void {
  let pending = Buffer.alloc(0);
  let queue = Promise.resolve();
  socket.setTimeout(10_000, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
      const query = pending.subarray(2, 2 + pending.readUInt16BE(0));
      pending = pending.subarray(2 + query.length);
      queue = queue.then(async () => {
        const reply = await answer(query);
        if (!reply || socket.destroyed) return;
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([length, reply]));
      });
    }
  });
}

/** The upstream's answer to a query sent as it came (same id), over UDP from a socket of its own. */
function askUdp(upstream: Upstream, query: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(upstream.address) === 6 ? 'udp6' : 'udp4');
    const done = (err: Error | undefined, reply?: Buffer) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(reply!);
    };
    const timer = setTimeout(() => done(new Error('the upstream resolver did not answer')), timeoutMs);
    socket.on('error', (err) => done(err));
    socket.on('message', (reply: Buffer) => {
      // Only the answer to this query (a stray datagram to this port is not one).
      if (reply.length >= 2 && reply.readUInt16BE(0) === query.readUInt16BE(0)) done(undefined, reply);
    });
    socket.send(query, upstream.port, upstream.address);
  });
}

/** The same over TCP, for questions that came over TCP (answers too large for a datagram). */
function askTcp(upstream: Upstream, query: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: upstream.address, port: upstream.port });
    let received = Buffer.alloc(0);
    const done = (err: Error | undefined, reply?: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(reply!);
    };
    const timer = setTimeout(() => done(new Error('the upstream resolver did not answer')), timeoutMs);
    socket.on('error', (err) => done(err));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        done(undefined, received.subarray(2, 2 + received.readUInt16BE(0)));
      }
    });
    socket.on('end', () => done(new Error('the upstream resolver closed the connection')));
  });
}
