import { mergePatch, patchType } from './merge-patch.js';

test.each([
  ['cordon', { spec: {} }, { spec: { unschedulable: true } }, { spec: { unschedulable: true } }],
  ['uncordon: null removes the field', { spec: { unschedulable: true, podCIDR: 'x' } }, { spec: { unschedulable: null } }, { spec: { podCIDR: 'x' } }],
  ['maps merge, lists are replaced', { metadata: { labels: { a: '1' } }, l: [1, 2] }, { metadata: { labels: { b: '2' } }, l: [3] }, { metadata: { labels: { a: '1', b: '2' } }, l: [3] }],
  ["a strategic patch's directives are dropped", { spec: {} }, { $setElementOrder: [], spec: { unschedulable: true, $retainKeys: ['x'] } }, { spec: { unschedulable: true } }],
  ['a field that was no map becomes one', { spec: 'x' }, { spec: { a: 1 } }, { spec: { a: 1 } }],
])('%s', (_title, target, patch, expected) => {
  expect(mergePatch(target, patch)).toEqual(expected);
});

test('the patch types taken, and the 415 for the rest', () => {
  expect(patchType('application/strategic-merge-patch+json')).toBe('application/strategic-merge-patch+json');
  expect(patchType('application/merge-patch+json; charset=utf-8')).toBe('application/merge-patch+json');
  expect(() => patchType('application/json-patch+json')).toThrow(expect.objectContaining({ code: 415, reason: 'UnsupportedMediaType' }));
});
