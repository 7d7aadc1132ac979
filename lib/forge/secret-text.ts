/**
 * A secret's text. Secrets Manager values are strings, or (a secret created as key/value pairs in
 * the console) objects that @middy/secrets-manager has parsed: their one string value is taken.
 */
export function secretText(value: unknown): string | undefined {
  if (typeof value === 'string') return value || undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const strings = Object.values(value).filter((v): v is string => typeof v === 'string' && v !== '');
  return strings.length === 1 ? strings[0] : undefined;
}
