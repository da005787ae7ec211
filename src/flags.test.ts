import { readFlags, usage } from './flags.js';

const flags = {
  port: { type: 'string' as const, default: '9443', help: 'HTTPS port' },
  cert: { type: 'string' as const, help: 'certificate file' },
  dry: { type: 'boolean' as const, default: false, help: 'change nothing' },
};

describe('readFlags', () => {
  it('reads flags in both spellings, with defaults for those not given', () => {
    expect(readFlags('webhook', flags, ['--cert', 'a.crt', '--dry'])).toEqual({
      values: { port: '9443', cert: 'a.crt', dry: true },
    });
    expect(readFlags('webhook', flags, ['--port=1', '--cert=b'])).toEqual({
      values: { port: '1', cert: 'b', dry: false },
    });
  });

  it('names the component and the flag it does not know, instead of throwing', () => {
    const r = readFlags('webhook', flags, ['--prot', '1']);
    expect(r).toEqual({ error: expect.stringMatching(/^webhook: .*'--prot'.*\(see --help\)$/) as string });
  });

  it('refuses a value for a switch, a switch without its value, and positionals', () => {
    for (const argv of [['--dry=yes'], ['--cert'], ['extra']])
      expect(readFlags('controller', flags, argv)).toEqual({
        error: expect.stringMatching(/^controller: .*\(see --help\)$/) as string,
      });
  });

  it('asks for help before anything else is read', () => {
    expect(readFlags('runtimed', flags, ['--prot', '--help'])).toEqual({ help: true });
    expect(readFlags('runtimed', flags, ['-h'])).toEqual({ help: true });
  });
});

describe('usage', () => {
  it('lists every flag with its help and default', () => {
    const text = usage('webhook', 'The admission webhook.', flags);
    expect(text).toBe(
      [
        'Usage: kruntimes webhook [flags]',
        '',
        'The admission webhook.',
        '',
        'Flags:',
        '  --port <value>',
        '      HTTPS port (default "9443")',
        '  --cert <value>',
        '      certificate file',
        '  --dry',
        '      change nothing',
        '  --help',
        '      Print this and exit.',
        '',
      ].join('\n'),
    );
  });
});
