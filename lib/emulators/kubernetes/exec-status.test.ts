import { execStatus } from './exec-status.js';

const argv = ['sh', '-c', 'exit 3'];

describe('the status that ends an exec, as the real cluster words it', () => {
  test.each(['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const)('%s: exit 0 is a bare Success', (protocol) => {
    expect(JSON.stringify(execStatus({ kind: 'exited', exitCode: 0 }, protocol, argv))).toBe('{"metadata":{},"status":"Success"}');
  });

  test('v5 (stream translator): the exit as client-go reported it to the translator', () => {
    expect(JSON.stringify(execStatus({ kind: 'exited', exitCode: 3 }, 'v5.channel.k8s.io', argv))).toBe(
      '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}',
    );
  });

  test("v4 (kubelet): the exit in containerd's words, with the command", () => {
    expect(execStatus({ kind: 'exited', exitCode: 3 }, 'v4.channel.k8s.io', argv).message).toBe(
      'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
    );
  });

  test('a runtime failure: InternalError from the kubelet, wrapped once more by the translator', () => {
    const runtime = 'failed to exec in container: boom';
    expect(execStatus({ kind: 'failed', message: runtime }, 'v4.channel.k8s.io', argv)).toEqual({
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: error executing command in container: ${runtime}`,
      reason: 'InternalError',
      details: { causes: [{ message: `error executing command in container: ${runtime}` }] },
      code: 500,
    });
    expect(execStatus({ kind: 'failed', message: runtime }, 'v5.channel.k8s.io', argv)).toEqual({
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: Internal error occurred: error executing command in container: ${runtime}`,
      reason: 'InternalError',
      details: { causes: [{ message: `Internal error occurred: error executing command in container: ${runtime}` }] },
      code: 500,
    });
  });

  test("v5: the kubelet's refusal, as the translator's failed upgrade", () => {
    expect(execStatus({ kind: 'refused', message: 'container not found ("step")' }, 'v5.channel.k8s.io', argv)).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: unable to upgrade connection: container not found ("step")',
      reason: 'InternalError',
      details: { causes: [{ message: 'unable to upgrade connection: container not found ("step")' }] },
      code: 500,
    });
  });
});
