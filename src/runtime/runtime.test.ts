import type { Run } from '../api/types.js';
import { MAX_OUTPUTS, MAX_OUTPUT_VALUE_LENGTH } from '../limits.js';
import { parseControl } from './control-file.js';
import {
  claimAnsweredInTime,
  claimStatus,
  fenceMs,
  endStatus,
  isClaimable,
  isStale,
  mayRequeue,
  isTerminal,
  logTail,
  lostStatus,
  requeueStatus,
  type Ending,
} from './lifecycle.js';
import { MAX_OUTPUT_FILE_BYTES, parseOutputs } from './outputs.js';

describe('parseOutputs ($KRT_OUTPUT)', () => {
  it('reads KEY=VALUE lines, keeping "=" inside values and ignoring blank lines', () => {
    expect(parseOutputs('a=1\n\nurl=http://x/?q=1&r=2\nempty=\n')).toEqual({
      outputs: { a: '1', url: 'http://x/?q=1&r=2', empty: '' },
    });
  });
  it('reads KEY<<DELIM blocks as multi-line values', () => {
    expect(parseOutputs('notes<<EOF\nline 1\nline=2\n\nEOF\nafter=yes\n')).toEqual({
      outputs: { notes: 'line 1\nline=2\n', after: 'yes' },
    });
  });
  it('accepts CRLF line ends', () => {
    expect(parseOutputs('a=1\r\nb<<X\r\ny\r\nX\r\n')).toEqual({
      outputs: { a: '1', b: 'y' },
    });
  });
  it('lets a later line win for the same key', () => {
    expect(parseOutputs('a=1\na=2')).toEqual({ outputs: { a: '2' } });
  });
  it('an empty file has no outputs', () => {
    expect(parseOutputs('')).toEqual({ outputs: {} });
  });
  it.each([
    [
      'no separator',
      'justtext\n',
      '$KRT_OUTPUT line 1: expected KEY=VALUE or KEY<<DELIMITER, got "justtext"',
    ],
    ['empty key', '=v\n', '$KRT_OUTPUT line 1: expected KEY=VALUE or KEY<<DELIMITER, got "=v"'],
    ['bad key', 'a=1\nbad key=v\n', '$KRT_OUTPUT line 2: output name "bad key" must be'],
    ['unclosed heredoc', 'x<<END\nabc\n', '$KRT_OUTPUT line 1: delimiter "END" of "x" is never closed'],
    ['heredoc without delimiter', 'x<<\n', '$KRT_OUTPUT line 1: "x<<" needs a delimiter'],
  ])('%s is OutputsInvalid with the line', (_n, text, message) => {
    const r = parseOutputs(text);
    expect(r).toMatchObject({ reason: 'OutputsInvalid' });
    expect('message' in r && r.message.startsWith(message)).toBe(true);
  });
  it('a value over the limit is OutputsTooLarge', () => {
    expect(parseOutputs(`big=${'x'.repeat(MAX_OUTPUT_VALUE_LENGTH + 1)}`)).toEqual({
      reason: 'OutputsTooLarge',
      message: `output "big" holds ${MAX_OUTPUT_VALUE_LENGTH + 1} characters, more than the limit of ${MAX_OUTPUT_VALUE_LENGTH}`,
    });
    expect(parseOutputs(`big=${'x'.repeat(MAX_OUTPUT_VALUE_LENGTH)}`)).toMatchObject({ outputs: {} });
  });
  it('more outputs than the limit is OutputsTooLarge', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join('\n');
    expect(parseOutputs(lines(MAX_OUTPUTS))).toHaveProperty('outputs');
    expect(parseOutputs(lines(MAX_OUTPUTS + 1))).toEqual({
      reason: 'OutputsTooLarge',
      message: `more than ${MAX_OUTPUTS} outputs`,
    });
  });
  it('a file over the byte limit is OutputsTooLarge', () => {
    const text = `a=${'x'.repeat(MAX_OUTPUT_FILE_BYTES)}`;
    expect(parseOutputs(text)).toMatchObject({ reason: 'OutputsTooLarge' });
  });
});

describe('parseControl ($KRT_CONTROL)', () => {
  it('reads the three fields', () => {
    expect(parseControl('retryAfter: 10m\nsuspend: true\nmessage: waiting for approval\n')).toEqual({
      control: { retryAfter: '10m', suspend: true, message: 'waiting for approval' },
    });
  });
  it('an empty or null document is no control', () => {
    expect(parseControl('')).toEqual({});
    expect(parseControl('~\n')).toEqual({});
    expect(parseControl('{}')).toEqual({});
  });
  it.each([
    ['suspend: yes-please', '$KRT_CONTROL suspend: must be true or false'],
    ['retryAfter: soon', '$KRT_CONTROL retryAfter: "soon" is not a duration such as 30s, 10m, 1h30m or 1d'],
    ['retryAfter: 10', '$KRT_CONTROL retryAfter: 10 is not a duration'],
    ['retryAfter: 0s', '$KRT_CONTROL retryAfter: "0s" must be longer than zero'],
    ['message: [1]', '$KRT_CONTROL message: must be a string'],
    ['other: 1', '$KRT_CONTROL other: unknown field (allowed: retryAfter, suspend, message)'],
    ['- a', '$KRT_CONTROL must be a mapping'],
  ])('%s is refused', (text, error) => {
    expect(parseControl(text)).toEqual({ error });
  });
  it('bad YAML is refused with the parser first line', () => {
    const r = parseControl('a: [');
    expect('error' in r && r.error.startsWith('$KRT_CONTROL is not YAML: ')).toBe(true);
  });
});

const run = (status?: Run['status']): Run => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Run',
  metadata: { name: 'r', namespace: 'ns' },
  spec: { runtime: 'bash', script: 'true' },
  ...(status ? { status } : {}),
});
const now = new Date('2026-12-02T10:00:00.000Z');

describe('the fence and a claim answered late', () => {
  const periods = { heartbeatMs: 1000, staleMs: 5000, graceMs: 1000 };
  it('stops a step one heartbeat and the grace period before another agent may put it back', () => {
    expect(fenceMs(periods)).toBe(3000);
    expect(fenceMs({ heartbeatMs: 5000, staleMs: 30_000, graceMs: 5000 })).toBe(20_000);
  });
  it('is never shorter than one heartbeat', () => {
    expect(fenceMs({ heartbeatMs: 2000, staleMs: 3000, graceMs: 5000 })).toBe(2000);
  });
  it('starts a step whose claim came back within the fence, counted from when the claim was sent', () => {
    expect(claimAnsweredInTime(10_000, 10_000, periods)).toBe(true);
    expect(claimAnsweredInTime(10_000, 13_000, periods)).toBe(true);
  });
  it('does not start a step whose claim came back after the fence', () => {
    expect(claimAnsweredInTime(10_000, 13_001, periods)).toBe(false);
    expect(claimAnsweredInTime(10_000, 22_000, periods)).toBe(false);
  });
});

describe('Run lifecycle', () => {
  it('claimable: no phase or Pending only', () => {
    expect(isClaimable(run())).toBe(true);
    expect(isClaimable(run({ phase: 'Pending', attempts: 1 }))).toBe(true);
    for (const phase of ['Scheduled', 'Running', 'Succeeded', 'Failed', 'Timeout', 'Cancelled'] as const)
      expect(isClaimable(run({ phase }))).toBe(false);
  });
  it('terminal phases', () => {
    expect(
      ['Succeeded', 'Failed', 'Timeout', 'Cancelled'].every((p) => isTerminal(run({ phase: p as 'Failed' }))),
    ).toBe(true);
    expect(isTerminal(run({ phase: 'Running' }))).toBe(false);
    expect(isTerminal(run())).toBe(false);
  });
  it('a claim counts the attempt and starts the heartbeat', () => {
    expect(claimStatus(run({ phase: 'Pending', attempts: 2 }), 'agent-1', now)).toEqual({
      phase: 'Running',
      assignedTo: 'agent-1',
      attempts: 3,
      startTime: now.toISOString(),
      heartbeatTime: now.toISOString(),
    });
    expect(claimStatus(run(), 'a', now).attempts).toBe(1);
  });
  it('stale: a running Run whose heartbeat is older than the limit', () => {
    const at = (ms: number) => new Date(now.getTime() - ms).toISOString();
    expect(isStale(run({ phase: 'Running', heartbeatTime: at(31_000) }), now, 30_000)).toBe(true);
    expect(isStale(run({ phase: 'Running', heartbeatTime: at(30_000) }), now, 30_000)).toBe(false);
    expect(isStale(run({ phase: 'Running', startTime: at(40_000) }), now, 30_000)).toBe(true);
    expect(isStale(run({ phase: 'Running' }), now, 30_000)).toBe(true);
    expect(isStale(run({ phase: 'Succeeded', heartbeatTime: at(90_000) }), now, 30_000)).toBe(false);
    expect(isStale(run(), now, 30_000)).toBe(false);
  });
  it('another agent re-queues only what is stale by its heartbeat and quiet on its own clock', () => {
    const at = (ms: number) => new Date(now.getTime() - ms).toISOString();
    const silent = run({ phase: 'Running', heartbeatTime: at(60_000) });
    expect(mayRequeue(silent, now, 30_000, 31_000)).toBe(true);
    // Just back from an outage (or a clock ahead of the holder's): not quiet long enough here.
    expect(mayRequeue(silent, now, 30_000, 1_000)).toBe(false);
    expect(mayRequeue(run({ phase: 'Running', heartbeatTime: at(1_000) }), now, 30_000, 60_000)).toBe(false);
    expect(mayRequeue(run({ phase: 'Succeeded', heartbeatTime: at(90_000) }), now, 30_000, 90_000)).toBe(
      false,
    );
  });
  it('a re-queued Run keeps its attempts and says why', () => {
    expect(
      requeueStatus(run({ phase: 'Running', attempts: 2, assignedTo: 'x' }), 'agent x went silent'),
    ).toEqual({
      phase: 'Pending',
      attempts: 2,
      message: 'agent x went silent',
    });
  });
  it('lostStatus re-queues while attempts are left, then fails the Run as AgentLost', () => {
    const now = new Date('2026-12-01T10:00:00Z');
    const at = (attempts: number) => run({ phase: 'Running', attempts, assignedTo: 'x' });
    expect(lostStatus(at(2), 'agent x went silent', 3, now)).toEqual(
      requeueStatus(at(2), 'agent x went silent'),
    );
    expect(lostStatus(at(3), 'agent x went silent', 3, now)).toEqual({
      phase: 'Failed',
      reason: 'AgentLost',
      attempts: 3,
      message: 'AgentLost: agent x went silent; its agent was lost on all 3 attempts (--max-attempts 3)',
      completionTime: '2026-12-01T10:00:00.000Z',
    });
    expect(lostStatus(at(1), 'agent x restarted', 1, now).phase).toBe('Failed');
  });
  it('logTail keeps the last bytes and never starts inside a character', () => {
    expect(logTail(Buffer.from('hello'), 3)).toBe('llo');
    expect(logTail(Buffer.from('héllo'), 4)).toBe('llo'); // 'é' is 2 bytes: cut inside it, skip it
    expect(logTail(Buffer.from('héllo'), 5)).toBe('éllo');
    expect(logTail(Buffer.alloc(0))).toBe('');
    expect(Buffer.byteLength(logTail(Buffer.from('€'.repeat(3000))))).toBeLessThanOrEqual(4096);
  });
});

describe('endStatus', () => {
  const base: Ending = { exitCode: 0, signal: null, outputFile: '', controlFile: '', tail: 't', now };
  const done = { completionTime: now.toISOString(), logTail: 't' };
  it('exit 0 with outputs and control is Succeeded', () => {
    expect(endStatus({ ...base, outputFile: 'a=1\n', controlFile: 'suspend: true' })).toEqual({
      ...done,
      exitCode: 0,
      phase: 'Succeeded',
      reason: 'Completed',
      outputs: { a: '1' },
      control: { suspend: true },
    });
  });
  it('a non-zero exit is Failed with the code', () => {
    expect(endStatus({ ...base, exitCode: 3, outputFile: 'broken' })).toEqual({
      ...done,
      exitCode: 3,
      phase: 'Failed',
      reason: 'NonZeroExit',
      message: 'the script exited with code 3',
    });
  });
  it('timeout and cancel win over what the killed process reported', () => {
    expect(
      endStatus({ ...base, exitCode: null, signal: 'SIGTERM', stoppedFor: 'timeout', timeoutSeconds: 2 }),
    ).toEqual({
      ...done,
      phase: 'Timeout',
      reason: 'Timeout',
      message: 'stopped after timeoutSeconds 2',
    });
    expect(endStatus({ ...base, exitCode: 143, signal: null, stoppedFor: 'cancel' })).toMatchObject({
      phase: 'Cancelled',
      reason: 'Cancelled',
      exitCode: 143,
    });
  });
  it('a signal runtimed did not send is Failed', () => {
    expect(endStatus({ ...base, exitCode: null, signal: 'SIGKILL' })).toMatchObject({
      phase: 'Failed',
      reason: 'Signaled',
      message: 'the script was killed by SIGKILL',
    });
  });
  it('bad outputs, too-large outputs and bad control fail a successful script', () => {
    expect(endStatus({ ...base, outputFile: 'nope' })).toMatchObject({
      phase: 'Failed',
      reason: 'OutputsInvalid',
    });
    expect(endStatus({ ...base, outputFile: { bytes: 70_000 } })).toMatchObject({
      phase: 'Failed',
      reason: 'OutputsTooLarge',
      message: `$KRT_OUTPUT holds 70000 bytes, more than the limit of ${MAX_OUTPUT_FILE_BYTES}`,
    });
    expect(endStatus({ ...base, controlFile: 'suspend: 3' })).toMatchObject({
      phase: 'Failed',
      reason: 'WorkflowControlInvalid',
    });
    expect(endStatus({ ...base, controlFile: { bytes: 40_000 } })).toMatchObject({
      phase: 'Failed',
      reason: 'WorkflowControlInvalid',
      message: '$KRT_CONTROL holds 40000 bytes, more than the limit of 32768',
    });
  });
  it('keeps the manifests a script left in $KRT_OUTPUT_DIR, and fails one whose document is not an object', () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n';
    expect(endStatus({ ...base, outputDir: { files: { 'cm.yaml': cm } } })).toMatchObject({
      phase: 'Succeeded',
      outputFiles: { 'cm.yaml': cm },
    });
    expect(
      endStatus({
        ...base,
        outputDir: { files: { 'a.yaml': cm, 'b.yaml': 'kind: X\nmetadata: {name: y}' } },
      }),
    ).toMatchObject({
      phase: 'Failed',
      reason: 'OutputDocumentsInvalid',
      message: '$KRT_OUTPUT_DIR/b.yaml: apiVersion is required',
    });
    expect(endStatus({ ...base, outputDir: { files: { 'c.yaml': 'a: [' } } })).toMatchObject({
      reason: 'OutputDocumentsInvalid',
      message: expect.stringMatching(/^\$KRT_OUTPUT_DIR\/c\.yaml: /),
    });
    expect(endStatus({ ...base, outputDir: { error: 'too many' } })).toMatchObject({
      reason: 'OutputDocumentsInvalid',
      message: 'too many',
    });
  });
  it('keeps what a successful script wrote to $KRT_STATUS, and fails one whose file is broken', () => {
    expect(
      endStatus({ ...base, statusFile: 'message: half way\nreplicas: 3\nnested: {a: 1}\n' }),
    ).toMatchObject({
      phase: 'Succeeded',
      stepStatus: { message: 'half way', replicas: 3, nested: { a: 1 } },
    });
    expect(endStatus({ ...base, statusFile: 'a: [' })).toMatchObject({
      phase: 'Failed',
      reason: 'StatusFileInvalid',
      message: expect.stringMatching(/^\$KRT_STATUS is not YAML: /),
    });
    expect(endStatus({ ...base, statusFile: '- a' })).toMatchObject({
      reason: 'StatusFileInvalid',
      message: '$KRT_STATUS must be a mapping',
    });
    expect(endStatus({ ...base, exitCode: 2, statusFile: 'message: x' })).not.toHaveProperty('stepStatus');
  });
  it('a script that could not start is Failed with StartError', () => {
    expect(endStatus({ ...base, exitCode: null, startError: 'spawn bash ENOENT' })).toEqual({
      ...done,
      phase: 'Failed',
      reason: 'StartError',
      message: 'spawn bash ENOENT',
    });
  });
});
