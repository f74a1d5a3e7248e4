import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { syncerCommand, takeOverFromArg } from './syncer.js';

describe('hcc syncer --take-over-from', () => {
  it('takes comma-separated control center IDs, and adds up when given more than once (a Helm extraArgs list and a --set)', () => {
    const cmd = syncerCommand().exitOverride();
    cmd.action(() => {});
    cmd.parse(['--name', 'm1', '--take-over-from', 'id-a,id-b', '--take-over-from', 'id-c,id-a'], { from: 'user' });
    expect(cmd.opts().takeOverFrom).toEqual(['id-a', 'id-b', 'id-c']);
  });

  it('refuses what is not an ID, naming it', () => {
    expect(() => takeOverFromArg('ok,../etc')).toThrow(InvalidArgumentError);
    expect(() => takeOverFromArg('ok,../etc')).toThrow('"../etc" is not a control center ID');
    expect(() => takeOverFromArg('')).toThrow('"" is not a control center ID');
  });
});
