// Reading a log file that may still grow: what is there, then (when following) what is appended
// until the execution ends. Shared by runtimed's log endpoint and `krt logs` in local mode; the one
// part of src/runtime that reads files.
import { open } from 'node:fs/promises';

export interface FollowOptions {
  /** Keep reading until `ended()` is true and the file has no more bytes. */
  follow: boolean;
  ended: () => boolean | Promise<boolean>;
  write: (chunk: Buffer) => void;
  /** Stop early, such as when the reader went away. */
  aborted?: () => boolean;
  pollMs?: number;
}

/** Copies the file to `write`; resolves false when the file does not exist. */
export async function followFile(path: string, o: FollowOptions): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const buf = Buffer.alloc(64 * 1024);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead > 0) {
        pos += bytesRead;
        o.write(Buffer.from(buf.subarray(0, bytesRead)));
        continue;
      }
      if (!o.follow || o.aborted?.()) return true;
      // Check the end before the last read, so bytes written just before the end are not lost.
      if (await o.ended()) {
        const last = await fh.read(buf, 0, buf.length, pos);
        if (last.bytesRead === 0) return true;
        pos += last.bytesRead;
        o.write(Buffer.from(buf.subarray(0, last.bytesRead)));
        continue;
      }
      await new Promise((r) => setTimeout(r, o.pollMs ?? 200));
    }
  } finally {
    await fh.close();
  }
}
