// A TCP relay to a loopback port that a test can cut: the processes behind it lose the server
// (connections reset, new ones refused at once) while everything else still reaches it, as in a
// network partition of one client.
import net from 'node:net';

export interface Relay {
  port: number;
  /** Resets every relayed connection and every new one until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function relay(targetPort: number): Promise<Relay> {
  let cut = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (cut) return void client.resetAndDestroy();
    const upstream = net.connect(targetPort, '127.0.0.1');
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      cut = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
