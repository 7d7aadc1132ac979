/** "Did you mean" for misspelt keys: the nearest known key, if it is near enough to be a likely typo. */

/** Spellings from other CI systems and from Kubernetes itself that mean one of our keys. */
const ALIASES: Record<string, string> = {
  cmd: 'commands',
  cmds: 'commands',
  script: 'commands',
  scripts: 'commands',
  restorekeys: 'fallback-keys',
  retries: 'retry',
  maxretries: 'max',
  maxattempts: 'max',
  run: 'commands',
  command: 'commands',
  environment: 'env',
  variables: 'env',
  vars: 'env',
  imagepullpolicy: 'pull',
  imagepullsecrets: 'pull-secrets',
  pullsecret: 'pull-secrets',
  pullpolicy: 'pull',
  limits: 'resources',
  requests: 'resources',
  mem: 'memory',
  timeoutseconds: 'timeout',
  job: 'steps',
  jobs: 'steps',
  stages: 'steps',
};

export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  const normal = normalise(unknown);
  const sameWhenNormalised = known.find((key) => normalise(key) === normal);
  if (sameWhenNormalised) return sameWhenNormalised;
  const alias = ALIASES[normal];
  if (alias && known.includes(alias)) return alias;

  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(normal, normalise(key));
    if (!best || distance < best.distance) best = { key, distance };
  }
  // Short keys need a closer match, or "env" would be suggested for any three-letter word.
  const allowed = normal.length <= 4 ? 1 : 2;
  return best && best.distance <= allowed ? best.key : undefined;
}

function normalise(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions ("imgae" -> "image" is 1). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Infinity;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, at(i - 2, j - 2) + 1);
      const row = d[i];
      if (row) row[j] = value;
    }
  }
  return at(a.length, b.length);
}
