/** Which containers an earlier cluster left: a dead owner on this host, sandboxes last. */
import { leftovers } from './leftovers.js';
import { ownerLabel, parseOwnerLabel } from './labels.js';

const owner = 'step-runner.dev/embedded-cluster';
const type = 'io.kubernetes.docker.type';
const c = (Id: string, labels: Record<string, string>) => ({ Id, Labels: labels });

describe('leftovers', () => {
  const alive = (pid: number) => pid === 100;
  const listed = [
    c('sandbox-dead', { [owner]: 'laptop:200', [type]: 'podsandbox' }),
    c('step-dead', { [owner]: 'laptop:200', [type]: 'container' }),
    c('step-live', { [owner]: 'laptop:100', [type]: 'container' }),
    c('other-host', { [owner]: 'ci-box:200', [type]: 'container' }),
    c('malformed', { [owner]: 'laptop' }),
    c('not-ours', {}),
  ];

  it('are the dead owner’s on this host, the sandbox after its containers', () => {
    expect(leftovers(listed, 'laptop', alive).map((x) => x.Id)).toEqual(['step-dead', 'sandbox-dead']);
  });
});

describe('the owner label', () => {
  it.each([
    ['host:pid', 'laptop:42', { hostname: 'laptop', pid: 42 }],
    ['a host with colons', 'fe80::1:42', { hostname: 'fe80::1', pid: 42 }],
    ['no pid', 'laptop', undefined],
    ['pid 0', 'laptop:0', undefined],
    ['absent', undefined, undefined],
  ])('reads %s', (_name, value, expected) => {
    expect(parseOwnerLabel(value)).toEqual(expected);
  });

  it('reads back what it writes', () => {
    expect(parseOwnerLabel(ownerLabel({ hostname: 'h', pid: 9, clusterId: 'x' }))).toEqual({ hostname: 'h', pid: 9 });
  });
});
