import net from 'node:net';

/** What a {@link TcpProxy} does with traffic: forwards it, refuses connections, or swallows everything. */
export type ProxyMode = 'forward' | 'refuse' | 'silent';

export interface TcpProxy {
  /** `target` with this proxy's host and port instead. */
  url: string;
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /**
   * `silent` is a network partition: open connections stay open but nothing passes either way,
   * and new ones are accepted and never answered. `refuse` resets new connections.
   */
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 in front of the host and port of the URL `target`. */
export async function tcpProxy(target: string, mode: ProxyMode = 'forward'): Promise<TcpProxy> {
  const upstreamUrl = new URL(target);
  let current = mode;
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (current === 'refuse') return socket.resetAndDestroy();
    const upstream = net.connect(Number(upstreamUrl.port || 5432), upstreamUrl.hostname);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (current !== 'silent') socket.destroy();
    });
    socket.on('close', () => {
      if (current !== 'silent') upstream.destroy();
    });
    upstream.on('error', () => {});
    socket.on('data', (chunk) => {
      if (current !== 'silent') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (current !== 'silent') socket.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    get connections() {
      return connections;
    },
    setMode(next) {
      current = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
