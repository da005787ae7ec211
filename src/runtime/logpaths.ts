// Where runtimed keeps the full log of each execution, shared with `krt` reading them directly in
// local mode: <data>/logs/<namespace>/<run uid>/<attempt>.log. The UID keeps a re-created Run of the
// same name apart; the attempt keeps a re-queued execution's log beside the first.
import { join } from 'node:path';

export function runLogDir(dataDir: string, namespace: string, uid: string): string {
  return join(dataDir, 'logs', namespace, uid);
}

export function runLogFile(dataDir: string, namespace: string, uid: string, attempt: number): string {
  return join(runLogDir(dataDir, namespace, uid), `${attempt}.log`);
}
