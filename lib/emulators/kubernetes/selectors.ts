/**
 * Label and field selectors with the apiserver's grammar. Parsing errors become 400 BadRequest
 * with the apiserver's wording, since kubectl shows them to the user as they are.
 */
import { badRequest } from './api-errors.js';
import type { KubeObject } from './objects.js';

export type LabelRequirement =
  | { key: string; op: 'exists' | 'notexists' }
  | { key: string; op: 'in' | 'notin'; values: string[] };

export type FieldRequirement = { field: string; op: '=' | '!='; value: string };

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside `( … )`. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim());
}

function checkKey(key: string, whole: string): string {
  if (!LABEL_KEY.test(key) || key.length > 316) {
    throw badRequest(`unable to parse requirement: <nil>: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (in "${whole}")`);
  }
  return key;
}

function checkValue(value: string, key: string): string {
  if (!LABEL_VALUE.test(value) || value.length > 63) {
    throw badRequest(`unable to parse requirement: values[0][${key}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
  return value;
}

export function parseLabelSelector(selector: string | null | undefined): LabelRequirement[] {
  if (selector === null || selector === undefined || selector.trim() === '') return [];
  return splitTopLevel(selector).map((term): LabelRequirement => {
    if (term === '') throw badRequest(`found '', expected: identifier after ','`);
    const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
    if (setMatch) {
      const [, key = '', op, list = ''] = setMatch;
      const values = list.split(',').map((v) => checkValue(v.trim(), key));
      return { key: checkKey(key, selector), op: op === 'in' ? 'in' : 'notin', values };
    }
    const eqMatch = /^([^=!\s]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (eqMatch) {
      const [, key = '', op, value = ''] = eqMatch;
      return { key: checkKey(key, selector), op: op === '!=' ? 'notin' : 'in', values: [checkValue(value.trim(), key)] };
    }
    if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim(), selector), op: 'notexists' };
    return { key: checkKey(term, selector), op: 'exists' };
  });
}

export function matchesLabels(requirements: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  return requirements.every((r) => {
    const value = labels?.[r.key];
    switch (r.op) {
      case 'exists':
        return value !== undefined;
      case 'notexists':
        return value === undefined;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        // As in the apiserver: an object without the label satisfies `!=` and `notin`.
        return value === undefined || !r.values.includes(value);
    }
  });
}

/** Splits on a separator that is not escaped with a backslash. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text[i + 1];
      i += 1;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unescapeFieldValue(value: string, whole: string): string {
  let out = '';
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (ch === '\\') {
      const next = value[i + 1];
      if (next !== '\\' && next !== ',' && next !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: "\\${next ?? ''}" in "${whole}"`);
      }
      out += next;
      i += 1;
    } else if (ch === ',' || ch === '=') {
      throw badRequest(`invalid field selector: unescaped ${ch} in "${whole}"`);
    } else {
      out += ch;
    }
  }
  return out;
}

/** Finds the operator at the first unescaped `!=`, `==` or `=`. */
function splitTerm(term: string, whole: string): FieldRequirement {
  for (let i = 0; i < term.length; i += 1) {
    const ch = term[i];
    if (ch === '\\') {
      i += 1;
      continue;
    }
    const field = term.slice(0, i).trim();
    if (ch === '!' && term[i + 1] === '=') return { field, op: '!=', value: unescapeFieldValue(term.slice(i + 2), whole) };
    if (ch === '=' && term[i + 1] === '=') return { field, op: '=', value: unescapeFieldValue(term.slice(i + 2), whole) };
    if (ch === '=') return { field, op: '=', value: unescapeFieldValue(term.slice(i + 1), whole) };
  }
  throw badRequest(`invalid field selector: invalid selector: '${whole}'; can't understand '${term}'`);
}

/** `allowed` lists the field labels the resource supports; anything else is the apiserver's 400. */
export function parseFieldSelector(selector: string | null | undefined, allowed: readonly string[]): FieldRequirement[] {
  if (selector === null || selector === undefined || selector.trim() === '') return [];
  return splitUnescaped(selector, ',').map((term) => {
    const requirement = splitTerm(term, selector);
    if (!allowed.includes(requirement.field)) {
      throw badRequest(`field label not supported: ${requirement.field}`);
    }
    return requirement;
  });
}

/** The value a field label reads from an object; absent fields read as "" (as the apiserver's field sets do). */
export function fieldValue(object: KubeObject, field: string): string {
  const path = field === 'source' ? ['source', 'component'] : field.split('.');
  let value: unknown = object;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return '';
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

export function matchesFields(requirements: FieldRequirement[], object: KubeObject): boolean {
  return requirements.every((r) => (fieldValue(object, r.field) === r.value) === (r.op === '='));
}
