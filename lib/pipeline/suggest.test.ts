import { editDistance, suggestKey } from './suggest.js';

const stepKeys = ['name', 'image', 'commands', 'env', 'pull', 'timeout', 'resources', 'secrets'];

describe('suggestKey', () => {
  test.each([
    ['imgae', 'image'],
    ['command', 'commands'],
    ['secret', 'secrets'],
    ['timout', 'timeout'],
    ['Image', 'image'],
    ['script', 'commands'],
    ['environment', 'env'],
    ['imagePullPolicy', 'pull'],
    ['nmae', 'name'],
  ])('%s -> %s', (typo, expected) => {
    expect(suggestKey(typo, stepKeys)).toBe(expected);
  });

  test('suggests by spelling for top-level keys written in another case style', () => {
    expect(suggestKey('image_pull_grace', ['version', 'steps', 'image-pull-grace'])).toBe('image-pull-grace');
    expect(suggestKey('imagePullGrace', ['version', 'steps', 'image-pull-grace'])).toBe('image-pull-grace');
  });

  test.each(['foo', 'workdir', 'services', 'x'])('suggests nothing for %s, which resembles no key', (key) => {
    expect(suggestKey(key, stepKeys)).toBeUndefined();
  });

  test('alias targets that the object does not have are not suggested', () => {
    expect(suggestKey('script', ['cpu', 'memory'])).toBeUndefined();
  });
});

describe('editDistance', () => {
  test.each([
    ['image', 'image', 0],
    ['imgae', 'image', 1],
    ['command', 'commands', 1],
    ['kitten', 'sitting', 3],
    ['', 'env', 3],
  ])('%s / %s = %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});
