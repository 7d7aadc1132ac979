/** The little XML S3 speaks: escaping out, and the one request body it reads (DeleteObjects). */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[entity]!;
  });
}

export interface DeleteRequest {
  keys: string[];
  quiet: boolean;
}

/** `<Delete><Quiet>true</Quiet><Object><Key>k</Key></Object>...</Delete>`, as the SDK writes it; undefined when it is not that. */
export function parseDeleteRequest(body: string): DeleteRequest | undefined {
  if (!/<Delete[\s>]/.test(body)) return undefined;
  const keys: string[] = [];
  for (const match of body.matchAll(/<Object>([\s\S]*?)<\/Object>/g)) {
    const key = /<Key>([\s\S]*?)<\/Key>/.exec(match[1]!);
    if (!key) return undefined;
    keys.push(unescapeXml(key[1]!));
  }
  if (keys.length === 0 || keys.length > 1000) return undefined;
  return { keys, quiet: /<Quiet>\s*true\s*<\/Quiet>/i.test(body) };
}
