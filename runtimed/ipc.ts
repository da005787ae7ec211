// Messages between the agent and its launcher. Either side may be gone at any moment (a SIGKILL of
// the agent, a launcher that exited): a message to a peer that is gone is dropped, never thrown as
// an 'error' event, because each side learns of the other's end from its channel ('disconnect',
// 'exit') and acts there. A launcher that crashed on a late 'end' never stopped its steps in order.
import type { ChildProcess, Serializable } from 'node:child_process';
import { log } from '../src/telemetry/log.js';

type Channel = { send?: ChildProcess['send'] };

/** Sends a message if the peer is still there; says whether it was handed to the channel. */
export function sendToPeer(target: Channel, message: Serializable): Promise<boolean> {
  return new Promise((resolve) => {
    if (!target.send) return resolve(false);
    target.send(message, (e) => {
      if (e) log.debug({ err: e.message }, 'the peer is gone; message dropped');
      resolve(!e);
    });
  });
}
