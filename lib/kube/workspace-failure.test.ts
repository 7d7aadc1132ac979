import { describe, expect, it } from '@jest/globals';
import { WorkspaceVerdicts, blamesClaim, classifyWorkspaceMessage } from './workspace-failure.js';
import { volumeWords } from './cause.js';
import { loadWorkspaceExamples } from '../../test/fixtures/kube/workspace-examples.js';

// Throws (failing the file) when the fixture is missing or empty.
const examples = loadWorkspaceExamples();
const judged = examples.filter((e) => e.verdict !== 'waiting' && !e.pinned);
const scheduling = examples.filter((e) => e.event.reason === 'FailedScheduling');

describe('classifyWorkspaceMessage on real wording', () => {
  it('has permanent and transient examples to judge', () => {
    expect(judged.filter((e) => e.verdict === 'permanent').length).toBeGreaterThan(3);
    expect(judged.filter((e) => e.verdict === 'transient').length).toBeGreaterThan(3);
  });

  it.each(judged.map((e) => [e.name, e] as const))('%s', (_name, example) => {
    expect(classifyWorkspaceMessage(example.event.message)).toBe(example.verdict);
  });

  it.each(examples.map((e) => [e.name, e] as const))('keeps the key words as one paragraph: %s', (_name, example) => {
    const words = volumeWords(example.event.message);
    for (const key of example.keyWords) expect(words).toContain(key);
    expect(words).not.toMatch(/\n|rpc error: code = \w+ desc =/);
  });
});

describe('blamesClaim', () => {
  it.each(scheduling.map((e) => [e.name, e] as const))('%s', (_name, example) => {
    // The pinned examples are the nodes' fault (cpu, an unreachable node), not the claim's.
    expect(blamesClaim(example.event.message)).toBe(!example.pinned);
  });
});

describe('names prove nothing', () => {
  it.each([
    ['a storage class named like a timeout', 'storageclass.storage.k8s.io "timeout-tolerant" not found', WorkspaceVerdicts.Permanent],
    [
      'a claim named like a Multi-Attach error',
      '0/1 nodes are available: 1 persistentvolumeclaim "Multi-Attach error" not found.',
      WorkspaceVerdicts.Permanent,
    ],
    [
      'a volume named like a permission error',
      'AttachVolume.Attach failed for volume "UnauthorizedOperation" : rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      WorkspaceVerdicts.Transient,
    ],
  ])('%s', (_name, message, verdict) => {
    expect(classifyWorkspaceMessage(message)).toBe(verdict);
  });
});
