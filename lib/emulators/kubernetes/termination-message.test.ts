/** The kubelet's termination message: the file as the container left it, cut at 4096 bytes, or a failed container's log with FallbackToLogsOnError. */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container } from './objects.js';
import { readTerminationMessage, terminationMessageMount } from './termination-message.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termination-message-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const container = (fields: Partial<Container> = {}): Container => ({ name: 'step', image: 'busybox', ...fields });
const log = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');

it('mounts an empty file any user may write at the container path', async () => {
  const mount = await terminationMessageMount(dir, container({ terminationMessagePath: '/tmp/outcome' }));
  expect({ containerPath: mount.containerPath, readOnly: mount.readOnly, mode: (await stat(mount.file)).mode & 0o777, size: (await stat(mount.file)).size }).toEqual({ containerPath: '/tmp/outcome', readOnly: false, mode: 0o666, size: 0 });
});

it.each<[string, string, Partial<Container>, number, string | undefined]>([
  ['the file as written', 'pushed\n', {}, 0, 'pushed\n'],
  ['cut at 4096 bytes', 'x'.repeat(5000), {}, 1, 'x'.repeat(4096)],
  ['an empty file: no message', '', {}, 1, undefined],
  ['FallbackToLogsOnError, failed: the last 80 log lines', '', { terminationMessagePolicy: 'FallbackToLogsOnError' }, 1, log.split('\n').slice(-80).join('\n')],
  ['FallbackToLogsOnError, succeeded: no message', '', { terminationMessagePolicy: 'FallbackToLogsOnError' }, 0, undefined],
])('%s', async (_, written, fields, exitCode, expected) => {
  const mount = await terminationMessageMount(dir, container(fields));
  await writeFile(mount.file, written);
  expect(await readTerminationMessage(mount.file, container(fields), exitCode, () => log)).toBe(expected);
});
