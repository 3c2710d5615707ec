import { type Socket, createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

// A DNS server of the test's own on 127.0.0.1 (UDP, a spare port): it answers A and AAAA
// questions for the names it was given and NXDOMAIN for every other name, so a test controls what
// a host name resolves to without touching /etc/hosts or the machine's resolver (containers,
// bootstrapped roots and offline namespaces alike). Services use it through SWITCHYARD_DNS_SERVERS.

const TYPE_A = 1;
const TYPE_AAAA = 28;

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (msg[i] !== 0) {
    const len = msg[i];
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('ascii'));
    i += len + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
}

function answer(query: Buffer, zone: Map<string, string[]>): Buffer {
  const id = query.readUInt16BE(0);
  const { name, end } = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const question = query.subarray(12, end + 4);
  const known = zone.get(name.replace(/\.$/, ''));
  const records = (known ?? []).filter((a) =>
    qtype === TYPE_A ? isIPv4(a) : qtype === TYPE_AAAA && isIPv6(a),
  );
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  // QR, RD, RA; NXDOMAIN (3) for a name the zone does not have, else NOERROR.
  header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((address) => {
    const rdata = Buffer.from(ipaddr.parse(address).toByteArray());
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // a pointer to the question's name
    rr.writeUInt16BE(qtype, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(5, 6); // TTL
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...answers]);
}

export class DnsTestServer {
  private constructor(
    private readonly socket: Socket,
    private readonly zone: Map<string, string[]>,
    /** `127.0.0.1:<port>`: the value for SWITCHYARD_DNS_SERVERS. */
    readonly address: string,
  ) {}

  /** Starts a server answering each name with its addresses (IPv4 as A, IPv6 as AAAA). */
  static async start(records: Record<string, string[]>): Promise<DnsTestServer> {
    const zone = new Map(Object.entries(records).map(([n, a]) => [n.toLowerCase(), a]));
    const socket = createSocket('udp4');
    socket.on('message', (msg, peer) => {
      try {
        socket.send(answer(msg, zone), peer.port, peer.address);
      } catch {
        // A malformed datagram gets no answer, as from a real server.
      }
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    return new DnsTestServer(socket, zone, `127.0.0.1:${socket.address().port}`);
  }

  /** Changes (or adds) a name's answer. */
  set(name: string, addresses: string[]): void {
    this.zone.set(name.toLowerCase(), addresses);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
