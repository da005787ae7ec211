// Stops and starts the local kube-apiserver for suites that test an API outage (processes.ts):
// clients see connections refused meanwhile; its state in etcd is kept.
import { pidOf, startProcess, stopProcess } from './processes.js';

export const apiServerPid = (): number => pidOf('kube-apiserver');
/** SIGKILL (a crash: no graceful drain of watches), and returns once the process is gone. */
export const stopApiServer = (): Promise<void> => stopProcess('kube-apiserver');
/** Starts it again as it ran, and returns once it answers /readyz. */
export const startApiServer = (): Promise<void> => startProcess('kube-apiserver');
