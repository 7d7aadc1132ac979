/**
 * The Docker daemon still says what test/fixtures/kube/docker-pull-messages.json records, for the
 * cases marked `rechecked`: provoked again against the daemon on the socket (Engine API, POST
 * /images/create) with Debian's docker-registry and small stub registries on loopback. The unit
 * tables (lib/kube/image-pull-docker.test.ts) judge the recorded words; this catches a daemon
 * upgrade that changes them. When it fails, re-record (npx tsx
 * test/fixtures/docker/record-pull-wording.ts) and see whether the classifier still agrees.
 */
import { classifyPullMessage } from '../lib/kube/image-pull.js';
import { distributionRegistryInstalled } from './fixtures/distribution-registry.js';
import { dockerDaemonRequirement } from './fixtures/docker/engine-api.js';
import { pullCases, runCase } from './fixtures/docker/pull-cases.js';
import { failedEvent, fromTemplate, loadDockerPullMessages, runtimeError } from './fixtures/docker/pull-wording.js';
import { describeRequiring } from './fixtures/requirements.js';

const recorded = loadDockerPullMessages();
const rechecked = recorded.cases.filter((c) => c.rechecked);

describeRequiring('the Docker daemon pull wording', dockerDaemonRequirement(), () => {
  describeRequiring('against registries on loopback', distributionRegistryInstalled, () => {
    it('rechecks the refusals and the network failures the classifier tells apart', () => {
      expect(new Set(rechecked.map((c) => c.verdict))).toEqual(new Set(['permanent', 'transient']));
      expect(rechecked.some((c) => c.auth)).toBe(true);
    });

    it.each(rechecked.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const pullCase = pullCases.find((p) => p.name === c.name);
      expect(pullCase).toBeDefined();
      const run = await runCase(pullCase!);

      expect(run.image).toBe(fromTemplate(c.template.image, run.bindings));
      expect({ via: run.failure.via, status: run.failure.status, message: run.failure.message }).toEqual({
        via: c.via,
        status: c.status,
        message: fromTemplate(c.template.daemonMessage, run.bindings),
      });
      const event = failedEvent(run.image, runtimeError(run.failure.via, run.failure.message, run.failure.code));
      expect(classifyPullMessage(event, run.image)).toBe(c.verdict);
    });
  });
});
