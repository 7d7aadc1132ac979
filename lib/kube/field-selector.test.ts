import { escapeFieldSelectorValue, fieldSelector } from './field-selector.js';

describe('field selector escaping', () => {
  it('leaves ordinary names alone', () => {
    expect(fieldSelector({ 'involvedObject.name': 'build-1-test-0a1b2c3d' })).toBe('involvedObject.name=build-1-test-0a1b2c3d');
  });

  it('escapes the characters that are selector syntax, backslash first', () => {
    expect(escapeFieldSelectorValue('a,b=c\\d')).toBe('a\\,b\\=c\\\\d');
    expect(escapeFieldSelectorValue('\\,')).toBe('\\\\\\,');
  });

  it('joins several fields with commas that stay distinguishable from escaped ones', () => {
    expect(fieldSelector({ 'involvedObject.kind': 'Pod', 'involvedObject.name': 'x,y' })).toBe(
      'involvedObject.kind=Pod,involvedObject.name=x\\,y',
    );
  });
});
