/**
 * `npm start` runs the runner's commands in the folder it was typed in (INIT_CWD), not in the
 * runner's root where npm runs every script; nothing else moves (lib/cli/main.ts, startFolder).
 */
import { startFolder } from '../lib/cli/main.js';

const start = { npm_lifecycle_event: 'start', npm_package_name: 'serverless-step-runner', INIT_CWD: '/home/me/src/my-app' };

it.each([
  ['the runner\'s npm start, typed in a repository', start, '/home/me/src/my-app'],
  ['another script of the runner (npm test)', { ...start, npm_lifecycle_event: 'test' }, undefined],
  ['a start script of the user\'s own package that calls step-runner', { ...start, npm_package_name: 'my-app' }, undefined],
  ['npm without INIT_CWD', { npm_lifecycle_event: 'start', npm_package_name: 'serverless-step-runner' }, undefined],
  ['a plain shell', {}, undefined],
])('%s', (_what, env: NodeJS.ProcessEnv, folder) => {
  expect(startFolder(env)).toBe(folder);
});
