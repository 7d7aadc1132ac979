/** The embedded cluster's words for an image its catalog lacks (lib/emulators/kubernetes/pull-errors.ts). */
import { classifyPullMessage, isAuthPullFailure } from './image-pull.js';

const words =
  'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/node:20.18-alpine": not in the local image catalog: the embedded cluster pulls no image; add an entry for it with --images FILE (the format is in lib/emulators/kubernetes/images/README.md)';

test.each([
  ['the event', `Failed to pull image "node:20.18-alpine": ${words}`],
  ['the back-off message', `Back-off pulling image "node:20.18-alpine": ErrImagePull: ${words}`],
])('a catalog miss in %s is permanent, and no credentials problem', (_where, message) => {
  expect(classifyPullMessage(message, 'node:20.18-alpine')).toBe('permanent');
  expect(isAuthPullFailure(message, 'node:20.18-alpine')).toBe(false);
});
