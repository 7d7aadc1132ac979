import { describe, expect, it } from '@jest/globals';
import { tracesUrl } from './trace-export.js';

describe('tracesUrl', () => {
  const cases: [string, string][] = [
    ['http://collector:4318', 'http://collector:4318/v1/traces'],
    ['https://otlp.example.com/otlp/', 'https://otlp.example.com/otlp/v1/traces'],
    ['https://otlp.example.com/v1/traces', 'https://otlp.example.com/v1/traces'],
  ];
  it.each(cases)('%s sends to %s', (endpoint, url) => {
    expect(tracesUrl(endpoint)).toBe(url);
  });
});
