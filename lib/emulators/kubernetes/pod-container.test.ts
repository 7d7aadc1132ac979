import { ApiError } from './api-errors.js';
import type { Container, Pod } from './objects.js';
import { requestedContainer } from './pod-container.js';

const container = (name: string): Container => ({ name, image: 'alpine:3.20' });
const pod = (containers: string[], initContainers: string[] = []): Pod => ({
  metadata: { name: 'p' },
  spec: { containers: containers.map(container), ...(initContainers.length ? { initContainers: initContainers.map(container) } : {}) },
});

function refusal(call: () => unknown): { code: number; message: string } {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('the container a request means', () => {
  test("the pod's only container when none is named, even with init containers", () => {
    expect(requestedContainer(pod(['step'], ['clone']), '')).toBe('step');
  });

  test('any container named, init containers included', () => {
    expect(requestedContainer(pod(['a', 'b'], ['clone']), 'clone')).toBe('clone');
    expect(requestedContainer(pod(['a', 'b']), 'b')).toBe('b');
  });

  test('several and none named: the apiserver lists them all, init containers first', () => {
    expect(refusal(() => requestedContainer(pod(['a', 'b'], ['clone']), ''))).toEqual({
      code: 400,
      message: 'a container name must be specified for pod p, choose one of: [clone a b]',
    });
  });

  test('a name the pod does not have', () => {
    expect(refusal(() => requestedContainer(pod(['a']), 'nope'))).toEqual({ code: 400, message: 'container nope is not valid for pod p' });
  });
});
