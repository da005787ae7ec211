// runtimed's flags: what an operator sets, with the defaults docs/install.md lists.
import { availableParallelism, homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_STEP_LIMITS } from '../src/runtime/sandbox-command.js';
import type { Flags } from '../src/flags.js';
import { installNamespace } from '../src/kube/namespace.js';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_RUN_STALE_MS } from '../src/runtime/lifecycle.js';
import { opsFlags } from '../src/telemetry/ops.js';
import { PEER_AUDIENCE } from './peers.js';

const MB = 1024 * 1024;

export const RUNTIMED_FLAGS = {
  kubeconfig: { type: 'string', help: 'kubeconfig file; in a Pod, its service account' },
  identity: {
    type: 'string',
    default: hostname(),
    help: "this agent's name (the Pod name in a cluster): Runs it holds name it",
  },
  namespaces: {
    type: 'string',
    default: '',
    help: 'namespaces whose Runs it takes, comma-separated; empty: all',
  },
  runtimes: {
    type: 'string',
    default: 'bash',
    help: 'runtimes it offers (runs-on), comma-separated; name=impl serves a name with a built-in (bash, pod): kubernetes=pod runs container steps as Pods',
  },
  'helper-image': {
    type: 'string',
    help: "the image of a step Pod's prepare and report containers (default: this agent's own image, read from its Pod)",
  },
  'pod-stuck-seconds': {
    type: 'string',
    default: '300',
    help: 'seconds a step Pod may take to start its step (its image, a Secret, a node, a volume) before its Run fails, naming the cause',
  },
  'max-attempts': {
    type: 'string',
    default: String(DEFAULT_MAX_ATTEMPTS),
    help: 'attempts a Run gets when its agent is lost each time (crashed, or silent for --stale-seconds); then it fails with AgentLost',
  },
  concurrency: { type: 'string', default: String(availableParallelism() * 4), help: 'steps run at once' },
  'memory-mb': {
    type: 'string',
    help: "this agent's memory limit, MiB (its container's): bash steps run at once are as many as can fill their scratch areas within it",
  },
  'data-dir': {
    type: 'string',
    default: join(homedir(), '.local', 'state', 'kruntimes', 'runtimed'),
    help: 'logs, kept results and step folders',
  },
  'heartbeat-seconds': { type: 'string', default: '5', help: "seconds between a running Run's heartbeats" },
  'stale-seconds': {
    type: 'string',
    default: String(DEFAULT_RUN_STALE_MS / 1000),
    help: 'a Run whose heartbeat is this old is re-queued (webhook --run-stale-seconds must not exceed it)',
  },
  'grace-seconds': {
    type: 'string',
    default: '5',
    help: 'seconds between SIGTERM and SIGKILL of a stopped step',
  },
  'shutdown-seconds': {
    type: 'string',
    default: '30',
    help: 'on SIGTERM, seconds running steps get to finish before they are handed back',
  },
  'log-retention-hours': { type: 'string', default: '168', help: "hours a finished Run's log is kept" },
  'max-log-bytes': { type: 'string', default: String(16 * 1024 * 1024), help: 'largest log kept per Run' },
  'log-store-bytes': {
    type: 'string',
    default: String(1024 ** 3),
    help: 'bytes all logs kept here may take together (the oldest go first); keep it inside the data volume',
  },
  'lease-namespace': {
    type: 'string',
    default: installNamespace(),
    help: "where this agent's Lease lives ($POD_NAMESPACE when set)",
  },
  'lease-seconds': { type: 'string', default: '15', help: 'seconds the Lease counts when not renewed' },
  bwrap: { type: 'string', default: 'bwrap', help: 'the step sandbox program (bubblewrap)' },
  'work-dir': {
    type: 'string',
    help: "step folders (default <data-dir>/work); every folder above it must be open to a root agent's step uids",
  },
  'insecure-no-sandbox': {
    type: 'boolean',
    default: false,
    help: 'run steps as this agent, without the sandbox (they can reach all it can)',
  },
  'step-network': {
    type: 'string',
    default: 'none',
    help: "none: each step a network namespace of its own, loopback only; host: steps share the agent's network",
  },
  'step-uid-base': {
    type: 'string',
    default: '200000',
    help: 'a root agent runs each step as its own uid from here',
  },
  'step-max-processes': {
    type: 'string',
    default: String(DEFAULT_STEP_LIMITS.processes),
    help: 'processes a step may have',
  },
  'step-max-memory-mb': {
    type: 'string',
    default: String(DEFAULT_STEP_LIMITS.memoryBytes / MB),
    help: 'address space of each step process, MiB',
  },
  'step-max-file-mb': {
    type: 'string',
    default: String(DEFAULT_STEP_LIMITS.fileBytes / MB),
    help: 'largest file a step writes, MiB',
  },
  'step-max-open-files': {
    type: 'string',
    default: String(DEFAULT_STEP_LIMITS.openFiles),
    help: 'open files per process',
  },
  'step-max-workspace-mb': {
    type: 'string',
    default: String(DEFAULT_STEP_LIMITS.workspaceBytes / MB),
    help: "size of a step's workspace and /tmp, MiB",
  },
  host: { type: 'string', default: '0.0.0.0', help: 'address of the log endpoint (and health, metrics)' },
  port: { type: 'string', default: '8443', help: 'its port; HTTPS with --cert and --key' },
  cert: { type: 'string', help: 'serving certificate file of the log endpoint (PEM)' },
  key: { type: 'string', help: 'its private key file (PEM)' },
  'advertise-url': {
    type: 'string',
    help: "the log endpoint's URL as other agents reach it (https://<Pod IP>:<port>), in its Lease; other agents fetch the logs this one holds from there",
  },
  'peer-ca': {
    type: 'string',
    help: "the CA of the agents' serving certificates, to fetch another agent's logs (default: ca.crt beside --cert)",
  },
  'peer-server-name': {
    type: 'string',
    help: "the name on the agents' serving certificate (default kruntimes-runtimed.<lease namespace>.svc)",
  },
  'peer-token-file': {
    type: 'string',
    default: '/var/run/secrets/kruntimes.io/peer/token',
    help: `this agent's token for the audience ${PEER_AUDIENCE} (a projected service account token), shown to the agents it fetches logs from`,
  },
  ...opsFlags('0', '0'),
} satisfies Flags;
