// How steps tell a test what they did and wait for it: steps run in their sandbox and see nothing of
// this machine's files, but share its network, so a small HTTP server on loopback takes journals
// (lines steps append), gates (a step waits until the test opens it) and flags (set once).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface Channel {
  /** A journal: `append` is a shell command that posts its standard input as lines. */
  journal(): {
    append: string;
    read: string;
    lines: () => string[];
    /** Each line with when this server received it (ms since the epoch). */
    entries: () => { line: string; at: number }[];
  };
  /** A gate: `wait` returns once the test calls open(); `check` succeeds only once it has. */
  gate(): { wait: string; check: string; open: () => void };
  /** A flag: `isSet` succeeds once `set` (a shell command) has run. */
  flag(): { isSet: string; set: string };
  close(): Promise<void>;
}

export async function channel(): Promise<Channel> {
  const journals = new Map<string, { line: string; at: number }[]>();
  const open = new Set<string>();
  const flags = new Set<string>();
  const server = http.createServer((req, res) => {
    const [, kind, id = ''] = (req.url ?? '').split('/');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let code = 404;
      let text = '';
      if (kind === 'j' && req.method === 'POST') {
        const at = Date.now();
        journals.get(id)?.push(
          ...body
            .split('\n')
            .filter(Boolean)
            .map((line) => ({ line, at })),
        );
        code = 200;
      } else if (kind === 'j') {
        text = (journals.get(id) ?? []).map((l) => `${l.line}\n`).join('');
        code = 200;
      } else if (kind === 'g') code = open.has(id) ? 200 : 404;
      else if (kind === 'f' && req.method === 'POST') {
        flags.add(id);
        code = 200;
      } else if (kind === 'f') code = flags.has(id) ? 200 : 404;
      res.writeHead(code, { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const id = () => randomBytes(6).toString('hex');
  return {
    journal() {
      const j = id();
      journals.set(j, []);
      return {
        append: `curl -sf --data-binary @- ${base}/j/${j} >/dev/null`,
        read: `curl -sf ${base}/j/${j}`,
        lines: () => (journals.get(j) ?? []).map((e) => e.line),
        entries: () => [...(journals.get(j) ?? [])],
      };
    },
    gate() {
      const g = id();
      const check = `curl -sf ${base}/g/${g} >/dev/null`;
      return {
        wait: `until ${check}; do sleep 0.1; done`,
        check,
        open: () => void open.add(g),
      };
    },
    flag() {
      const f = id();
      return {
        isSet: `curl -sf ${base}/f/${f} >/dev/null`,
        set: `curl -sf -X POST ${base}/f/${f} >/dev/null`,
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
