// A TCP relay to a loopback port that a test can cut or slow down: the processes behind it lose
// the server (connections reset, new ones refused at once) or reach it late, while everything else
// reaches it as before, as in a network partition or a congested link of one client.
import net from 'node:net';

export interface Relay {
  port: number;
  /** Resets every relayed connection and every new one until restore(). */
  cut(): void;
  restore(): void;
  /**
   * Slows the link (0: at once); order is kept. Both ways, each chunk waits this long after the one
   * before it went on, as on a congested link whose queue grows with the traffic. Only the server's
   * answers: each chunk is passed on this long after it arrived, so every answer comes late by
   * about that much, however many chunks it has.
   */
  delay(ms: number, way?: 'both' | 'answers'): void;
  close(): Promise<void>;
}

export async function relay(targetPort: number): Promise<Relay> {
  let cut = false;
  let delayMs = 0;
  let answersOnly = false;
  const open = new Set<net.Socket>();
  // Each direction a chain of its own, so a chunk never overtakes the one before it when the delay
  // changes in between.
  const forward = (from: net.Socket, to: net.Socket, answers: boolean) => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      const wait = answers || !answersOnly ? delayMs : 0;
      const due = Date.now() + wait;
      const hold = () => (answersOnly ? Math.max(0, due - Date.now()) : wait);
      chain = chain
        .then(() => {
          const ms = hold();
          return ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : undefined;
        })
        .then(() => void (to.destroyed ? undefined : to.write(chunk)));
    });
    from.on('end', () => void chain.then(() => to.end()));
  };
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
    forward(client, upstream, false);
    forward(upstream, client, true);
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
    delay(ms: number, way: 'both' | 'answers' = 'both') {
      delayMs = ms;
      answersOnly = way === 'answers';
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
