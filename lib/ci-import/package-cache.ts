/**
 * A package manager's download cache kept in the workspace, where a `cache:` entry may keep it
 * (docs/pipeline.md#the-cache-between-builds): the variable that moves the tool's cache folder
 * there, and the entry keyed on its lock file. Shared by both dialects (setup-node's `cache:`).
 */
import type { DraftCache } from './types.js';

const MANAGERS: Record<string, { lock: string; folder: string; variable: string }> = {
  // https://docs.npmjs.com/cli/v10/using-npm/config#cache
  npm: { lock: 'package-lock.json', folder: '.npm', variable: 'npm_config_cache' },
  // https://classic.yarnpkg.com/en/docs/yarn-cache (YARN_CACHE_FOLDER); Yarn 2+ reads YARN_CACHE_FOLDER too
  yarn: { lock: 'yarn.lock', folder: '.yarn-cache', variable: 'YARN_CACHE_FOLDER' },
  // https://pnpm.io/npmrc#store-dir
  pnpm: { lock: 'pnpm-lock.yaml', folder: '.pnpm-store', variable: 'npm_config_store_dir' },
};

export function packageManagerCache(manager: string, lockFiles?: readonly string[]): { cache: DraftCache; setup: string } | undefined {
  const known = MANAGERS[manager];
  if (!known) return undefined;
  return {
    cache: { key: { files: lockFiles && lockFiles.length > 0 ? [...lockFiles] : [known.lock], prefix: manager }, paths: [known.folder], 'fallback-keys': [`${manager}-`] },
    setup: `export ${known.variable}="$CI_WORKSPACE/${known.folder}"`,
  };
}
