import { describe, expect, it } from '@jest/globals';
import { parseOtlpHeaders, tracesUrl } from './trace-export.js';

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

describe('parseOtlpHeaders', () => {
  const cases: [string, string, Record<string, string>][] = [
    ['a JSON object', '{"x-honeycomb-team": "k1", "Authorization": "Basic YTpi"}', { 'x-honeycomb-team': 'k1', Authorization: 'Basic YTpi' }],
    ["OTEL_EXPORTER_OTLP_HEADERS' list, values URL-encoded", 'api-key=k1, Authorization=Bearer%20t%3D1', { 'api-key': 'k1', Authorization: 'Bearer t=1' }],
    ['nothing', '  ', {}],
  ];
  it.each(cases)('reads %s', (_name, text, headers) => {
    expect(parseOtlpHeaders(text)).toEqual(headers);
  });

  const bad: [string, string][] = [
    ['a JSON object of numbers', '{"api-key": 12345}'],
    ['broken JSON', '{"api-key": "k1"'],
    ['a bare token', 'k1-secret-token'],
  ];
  it.each(bad)('refuses %s without repeating it', (_name, text) => {
    expect(() => parseOtlpHeaders(text)).toThrow(/^the OTLP headers secret is /);
    try {
      parseOtlpHeaders(text);
    } catch (error) {
      expect((error as Error).message).not.toMatch(/k1|12345/);
    }
  });
});
