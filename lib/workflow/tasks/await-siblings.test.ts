import type { V1Pod } from '@kubernetes/client-node';
import { Annotations } from '../../kube/index.js';
import { runningSiblings } from './await-siblings.js';

const pod = (step: string, phase: string, extra: { deleting?: true; finished?: true } = {}): [string, V1Pod] => [
  `pod-${step}`,
  {
    metadata: {
      name: `pod-${step}`,
      annotations: { [Annotations.step]: step, ...(extra.finished ? { [Annotations.finished]: 'true' } : {}) },
      ...(extra.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    status: { phase },
  },
];

describe('the siblings a failed combination with fail-fast: false waits for', () => {
  test.each<[string, [string, V1Pod][], string[]]>([
    ['pending and running ones', [pod('t-1', 'Pending'), pod('t-3', 'Running')], ['t-1', 't-3']],
    ['not its own pod', [pod('t-2', 'Running')], []],
    ['one that ended, until its FinishStep has kept its results', [pod('t-1', 'Succeeded'), pod('t-3', 'Failed')], ['t-1', 't-3']],
    ['not one its FinishStep marked finished (a pod another step needs stays)', [pod('t-1', 'Succeeded', { finished: true })], []],
    ['not one being deleted', [pod('t-1', 'Running', { deleting: true })], []],
  ])('%s', (_, pods, expected) => {
    expect(runningSiblings(new Map(pods), 't-2')).toEqual(expected);
  });
});
