/**
 * A step's `approval:` in a pipeline file: its normal form with the defaults, and each refusal with
 * its message and line.
 */
import { readPipelineText as read, pipelineTextProblems as problems } from '../../test/fixtures/pipeline-text.js';
import type { Approval } from './types.js';

/** A test step, then an approval step whose body starts at line 7. */
const file = (approval: string) =>
  `version: 1\nsteps:\n  - name: test\n    image: node:22-alpine\n    commands: [npm test]\n  - name: production\n${approval}`;

describe('approval in the normal form', () => {
  it.each<[string, string, Approval]>([
    ['an empty map: every default', '    approval: {}\n', { selfApproval: true, timeoutSeconds: 86_400 }],
    ['a message and a timeout', '    approval: {message: Ship it?, timeout: 2h}\n', { message: 'Ship it?', selfApproval: true, timeoutSeconds: 7200 }],
    [
      'users, teams (with or without @) and a permission',
      '    approval:\n      approvers: {users: [octocat, "@hubot"], teams: ["@acme/release", acme/ops], permission: maintain}\n      self-approval: false\n',
      { approvers: { users: ['octocat', 'hubot'], teams: ['acme/release', 'acme/ops'], permission: 'maintain' }, selfApproval: false, timeoutSeconds: 86_400 },
    ],
    ['the longest wait', '    approval: {timeout: 168h}\n', { selfApproval: true, timeoutSeconds: 604_800 }],
  ])('%s', (_, approval, expected) => {
    const step = read(file(approval)).steps[1]!;
    expect(step.approval).toEqual(expected);
    expect([step.image, step.imageRef, step.commands, step.services, step.cache, step.identity]).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it("takes none of the pipeline's services, caches or identity, which are for pods", () => {
    const text = `version: 1\nidentity: deployer\nservices: [{name: db, image: postgres:16}]\ncache: [{key: {prefix: v1}, paths: [node_modules]}]\nsteps:\n  - name: test\n    image: node:22-alpine\n    commands: [npm test]\n  - name: production\n    approval: {}\n`;
    const [test, production] = read(text).steps;
    expect([test!.identity, test!.services?.length, test!.cache?.length]).toEqual(['deployer', 1, 1]);
    expect(production).toEqual({ name: 'production', env: {}, pull: 'if-not-present', timeoutSeconds: 86_400, secrets: [], approval: { selfApproval: true, timeoutSeconds: 86_400 }, line: 9 });
  });
});

describe('approval steps side by side (needs)', () => {
  it('an approval that needs other steps, and a step that needs it', () => {
    const text =
      'version: 1\nsteps:\n  - name: test\n    image: node:22-alpine\n    commands: [npm test]\n  - name: build\n    needs: []\n    image: alpine\n    commands: [make]\n' +
      '  - name: approve\n    needs: [test, build]\n    approval: {}\n  - name: production\n    needs: [approve]\n    image: alpine\n    commands: [deploy]\n';
    expect(read(text).steps.map((step) => [step.name, step.needs])).toEqual([
      ['test', undefined],
      ['build', []],
      ['approve', ['test', 'build']],
      ['production', ['approve']],
    ]);
  });
});

describe('approval refused, with its line', () => {
  it.each<[string, string, { message: string; line?: number }[]]>([
    ['longer than a week', '    approval: {timeout: 169h}\n', [{ line: 7, message: 'ci.yml line 7: step "production": approval.timeout: "169h" is longer than the 168h limit (an approval waits at most 7 days)' }]],
    ['not a duration', '    approval: {timeout: soon}\n', [{ line: 7, message: expect.stringContaining('approval.timeout:') as string }]],
    [
      'an image beside it',
      '    image: alpine\n    approval: {}\n',
      [{ line: 7, message: 'ci.yml line 7: step "production": image: an approval step waits for a person and runs no pod, so it takes no image (only name, approval, needs, when)' }],
    ],
    [
      'commands and env beside it',
      '    approval: {}\n    commands: [deploy]\n    env: {A: b}\n',
      [
        { line: 8, message: 'ci.yml line 8: step "production": commands: an approval step waits for a person and runs no pod, so it takes no commands (only name, approval, needs, when)' },
        { line: 9, message: 'ci.yml line 9: step "production": env: an approval step waits for a person and runs no pod, so it takes no env (only name, approval, needs, when)' },
      ],
    ],
    [
      'a timeout of the step',
      '    approval: {}\n    timeout: 1h\n',
      [{ line: 8, message: 'ci.yml line 8: step "production": timeout: an approval step has no timeout of its own: write it in the approval ("approval: {timeout: 48h}")' }],
    ],
    ['a misspelt key', '    approval: {mesage: hi}\n', [{ line: 7, message: 'ci.yml line 7: step "production": unknown field "mesage" (did you mean "message"?)' }]],
    [
      'a permission GitHub does not have',
      '    approval: {approvers: {permission: read}}\n',
      [{ line: 7, message: 'ci.yml line 7: step "production": approval.approvers.permission: must be one of write, maintain, admin (the least repository permission an approver needs), not the text "read"' }],
    ],
    [
      'a team without its organization',
      '    approval: {approvers: {teams: [release]}}\n',
      [{ line: 7, message: 'ci.yml line 7: step "production": approval.approvers.teams[0]: the text "release" is not a team: write it as org/team-slug (e.g. acme/release)' }],
    ],
    [
      'after a failure',
      '    approval: {}\n    when: {status: failure}\n',
      [{ line: 8, message: 'ci.yml line 8: step "production": when.status: an approval step waits before the steps after it; once the build has failed there is nothing left to approve' }],
    ],
    ['neither image nor approval', '    commands: [deploy]\n', [{ line: 6, message: 'ci.yml line 6: step "production": image: missing (every step needs an image, or a build or an approval)' }]],
  ])('%s', (_, approval, expected) => {
    expect(problems(file(approval))).toEqual(expected);
  });

  it.each<[string, string, number]>([
    ['a matrix with fail-fast: false that the approval needs', 'steps:\n  - name: test\n    image: node:${{ matrix.node }}-alpine\n    matrix: {node: ["20", "22"]}\n    fail-fast: false\n    commands: [npm test]\n  - name: approve\n    needs: [test]\n    approval: {}\n  - name: production\n    needs: [approve]\n    image: alpine\n    commands: [deploy]\n', 6],
    ['one beside it, the approval below it waited for by the step below', 'steps:\n  - name: approve\n    approval: {}\n  - name: production\n    image: alpine\n    commands: [deploy]\n  - name: lint\n    needs: []\n    image: node:${{ matrix.node }}-alpine\n    matrix: {node: ["20", "22"]}\n    fail-fast: false\n    commands: [npm run lint]\n', 12],
  ])('steps that wait for an approval, and %s', (_, steps, line) => {
    expect(problems(`version: 1\n${steps}`)).toEqual([
      { line, message: expect.stringContaining('fail-fast: steps here wait for an approval, which a failed combination could keep from being asked') as string },
    ]);
  });

  it('takes fail-fast: false when no step waits for the approval (the last step)', () => {
    const text = 'version: 1\nsteps:\n  - name: test\n    image: node:${{ matrix.node }}-alpine\n    matrix: {node: ["20", "22"]}\n    fail-fast: false\n    commands: [npm test]\n  - name: approve\n    needs: [test]\n    approval: {}\n';
    expect(read(text).steps.map((step) => step.name)).toEqual(['test-node-20', 'test-node-22', 'approve']);
  });

  it('approvals that together wait longer than a week', () => {
    const text = `version: 1\nsteps:\n  - name: staging\n    approval: {timeout: 96h}\n  - name: production\n    approval: {timeout: 96h}\n`;
    expect(problems(text)).toEqual([{ line: 2, message: expect.stringContaining("the approvals' timeouts add up to 192h") as string }]);
  });

  it("does not count an approval's wait in the steps' 24 h", () => {
    const text = `version: 1\nsteps:\n  - name: build\n    image: alpine\n    commands: [make]\n    timeout: 23h\n  - name: production\n    approval: {timeout: 168h}\n`;
    expect(read(text).steps.map((step) => step.timeoutSeconds)).toEqual([82_800, 604_800]);
  });
});
