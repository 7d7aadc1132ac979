/**
 * Escapes a value for a Kubernetes field selector (as apimachinery's fields.EscapeValue does):
 * `\`, `,` and `=` are the selector's own syntax and must be backslash-escaped.
 */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** `key=value,key2=value2` with every value escaped. */
export function fieldSelector(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${escapeFieldSelectorValue(value)}`)
    .join(',');
}
