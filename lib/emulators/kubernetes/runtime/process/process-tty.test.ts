import { scriptArgs, scriptProgram } from './process-tty.js';

describe("a tty exec's command line for util-linux's script", () => {
  test.each([
    ['words quoted for script\'s shell, quotes inside included', ['sh', '-c', "echo 'it''s' $HOME"], {}, `unset SHELL; exec 'sh' '-c' 'echo '\\''it'\\'''\\''s'\\'' $HOME'`],
    ["the container's SHELL given back to the command", ['bash'], { SHELL: '/bin/bash' }, "export SHELL='/bin/bash'; exec 'bash'"],
  ])('%s', (_, argv, env, command) => {
    const { args, env: scriptEnv } = scriptArgs(argv, env);
    expect(args).toEqual(['-qfec', command, '/dev/null']);
    // script runs -c with $SHELL: a POSIX shell, whatever the container's is.
    expect(scriptEnv.SHELL).toBe('/bin/sh');
  });

  test('script found on a PATH, and not on one without it', () => {
    expect(scriptProgram('/nonexistent:/also-not')).toBeUndefined();
    expect(scriptProgram(`/nonexistent:${process.env.PATH ?? ''}`)).toMatch(/\/script$/);
  });
});
