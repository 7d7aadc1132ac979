import { skipInstruction } from './skip-ci.js';

describe('skipInstruction', () => {
  it.each([
    ['Fix the typo [skip ci]', '[skip ci]'],
    ['[ci skip] docs only', '[ci skip]'],
    ['Update README\n\nNothing to build here. [no ci]', '[no ci]'],
    ['wip [skip actions]', '[skip actions]'],
    ['wip [actions skip]', '[actions skip]'],
    // Any case: people write it both ways and mean it.
    ['Release notes [Skip CI]', '[Skip CI]'],
    ['Docs\n\nSigned-off-by: A <a@example.com>\nskip-checks: true', 'skip-checks: true'],
    ['Docs\n\n\nskip-checks:true', 'skip-checks:true'],
    ['Docs\r\n\r\nskip-checks: true\r\n', 'skip-checks: true'],
  ])('skips %j', (message, instruction) => {
    expect(skipInstruction(message)).toBe(instruction);
  });

  it.each([
    ['an ordinary message', 'Add the parser'],
    ['no brackets', 'skip ci for now'],
    ['another spelling', '[skipci] [ci-skip] [skip  ci]'],
    ['a trailer that is the subject, not a trailer', 'skip-checks: true'],
    ['a trailer that is not last', 'Docs\n\nskip-checks: true\nSigned-off-by: A <a@example.com>'],
    ['a trailer saying false', 'Docs\n\nskip-checks: false'],
    ['no message', undefined],
    ['an empty message', ''],
  ])('builds %s', (_what, message) => {
    expect(skipInstruction(message)).toBeUndefined();
  });
});
