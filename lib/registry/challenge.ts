/** The WWW-Authenticate challenge of a registry (RFC 7235, as the distribution token spec uses it). */

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** The first challenge of the header; registries send one (Bearer or Basic). */
export function parseChallenge(header: string | null): Challenge | undefined {
  if (!header) return undefined;
  const match = /^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const param of (match[2] ?? '').matchAll(/([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g)) {
    params[param[1]!.toLowerCase()] = param[2] !== undefined ? param[2].replace(/\\(.)/g, '$1') : (param[3] ?? '');
  }
  return { scheme: match[1]!.toLowerCase(), params };
}
