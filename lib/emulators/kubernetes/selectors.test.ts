import { ApiError } from './api-errors.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';

const labels = { app: 'web', tier: 'front', 'step-runner.dev/build': 'b-1' };

test.each([
  ['', true],
  ['app=web', true],
  ['app==web', true],
  ['app!=web', false],
  ['app!=db', true],
  ['missing!=x', true],
  ['app in (web, db)', true],
  ['app notin (web,db)', false],
  ['missing notin (a)', true],
  ['tier', true],
  ['!tier', false],
  ['!missing', true],
  ['app=web,tier=back', false],
  ['step-runner.dev/build=b-1,app in (web),!missing', true],
])('label selector %j matches: %s', (selector, expected) => {
  expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
});

test('a malformed label selector is a 400 BadRequest', () => {
  let error: unknown;
  try {
    parseLabelSelector('app=we b');
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(400);
  expect((error as ApiError).message).toMatch(/^unable to parse requirement: /);
});

const event = {
  metadata: { name: 'e.1', namespace: 'ci' },
  involvedObject: { kind: 'Pod', name: 'a,b=c\\d', fieldPath: 'spec.containers{step}' },
  type: 'Warning',
  source: { component: 'kubelet' },
};
const allowed = ['metadata.name', 'metadata.namespace', 'involvedObject.name', 'involvedObject.fieldPath', 'involvedObject.kind', 'type', 'source'];

test.each([
  ['involvedObject.name=a\\,b\\=c\\\\d', true],
  ['involvedObject.name==a\\,b\\=c\\\\d,type=Warning', true],
  ['involvedObject.name=a', false],
  ['involvedObject.fieldPath=spec.containers{step},metadata.namespace=ci', true],
  ['type!=Warning', false],
  ['involvedObject.kind!=Node', true],
  ['source=kubelet', true],
])('field selector %j matches: %s', (selector, expected) => {
  expect(matchesFields(parseFieldSelector(selector, allowed), event as never)).toBe(expected);
});

test('unsupported field labels and bad escapes are 400s with the apiserver wording', () => {
  expect(() => parseFieldSelector('spec.foo=1', allowed)).toThrow('field label not supported: spec.foo');
  expect(() => parseFieldSelector('type=a\\b', allowed)).toThrow(/invalid escape sequence/);
  expect(() => parseFieldSelector('type', allowed)).toThrow(/invalid field selector/);
});
