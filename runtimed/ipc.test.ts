import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { sendToPeer } from './ipc.js';

describe('sendToPeer', () => {
  it('drops a message to a peer that is gone instead of raising an error event', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    const errors: Error[] = [];
    child.on('error', (e) => errors.push(e));
    await once(child, 'exit');
    expect(await sendToPeer(child, { type: 'end', id: '0' })).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([]);
  });

  it('hands a message to a peer that is there', async () => {
    const child = spawn(
      process.execPath,
      ['-e', "process.once('message', (m) => { process.send(m); process.disconnect(); })"],
      { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
    );
    const echoed = once(child, 'message');
    expect(await sendToPeer(child, { type: 'stop', id: '1' })).toBe(true);
    expect((await echoed)[0]).toEqual({ type: 'stop', id: '1' });
    await once(child, 'exit');
  });

  it('sends nothing from a process that has no channel', async () => {
    expect(await sendToPeer({}, { type: 'end', id: '2' })).toBe(false);
  });
});
