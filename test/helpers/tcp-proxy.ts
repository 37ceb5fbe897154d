// A TCP proxy on 127.0.0.1 in front of a real server (Redis), that a test can cut, stall and
// restore to stage an outage: while cut, open connections are dropped and new ones closed at once;
// while stalled, connections stay open (and new ones are accepted) but nothing is forwarded either
// way, as with a server that hangs, until restore() forwards what waited.
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): void;
  stall(): void;
  restore(): void;
  /** Client connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function createTcpProxy(target: { host: string; port: number }, options: { cut?: boolean } = {}): Promise<TcpProxy> {
  let state: 'open' | 'cut' | 'stalled' = options.cut ? 'cut' : 'open';
  const open = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let accepted = 0;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const forward = ([client, upstream]: [Socket, Socket]) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const hold = ([client, upstream]: [Socket, Socket]) => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const server = createServer((client) => {
    accepted++;
    track(client);
    if (state === 'cut') return void client.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    if (state === 'open') forward(pair);
    else hold(pair);
    client.on('close', () => (pairs.delete(pair), upstream.destroy()));
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      state = 'cut';
      for (const socket of open) socket.destroy();
    },
    stall() {
      state = 'stalled';
      for (const pair of pairs) hold(pair);
    },
    restore() {
      if (state === 'stalled') for (const pair of pairs) forward(pair);
      state = 'open';
    },
    accepted: () => accepted,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
