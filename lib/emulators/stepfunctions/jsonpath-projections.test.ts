import { JSONPath } from 'jsonpath-plus';
import './jsonpath-projections.js';

// As aws-local-stepfunctions asks (wrap: false), against what Step Functions answers (jsonpath-projections.ts).
describe('a path as the local executor evaluates it', () => {
  it.each([
    ['a wildcard that matches nothing: the empty list', '$[*].failure', [{ step: 'a' }, { step: 'b' }], []],
    ['a wildcard with one match: a list of one', '$[*].failure', [{ step: 'a' }, { failure: { Error: 'StepFailed' } }], [{ Error: 'StepFailed' }]],
    ['a wildcard with two: both, in order', '$[*].failure', [{ failure: 1 }, {}, { failure: 2 }], [1, 2]],
    ['a reference path that finds nothing: nothing (the state fails)', '$.failure', { step: 'a' }, undefined],
    ['a reference path to an element: the element', '$.failures[0]', { failures: [{ Error: 'StepFailed' }] }, { Error: 'StepFailed' }],
  ])('%s', (_, path, json, expected) => {
    expect(JSONPath({ path, json, wrap: false })).toEqual(expected);
  });
});
