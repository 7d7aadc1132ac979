/**
 * A commit message that asks for no build, by the instructions GitHub Actions honours
 * (docs.github.com, "Skipping workflow runs"): `[skip ci]`, `[ci skip]`, `[no ci]`,
 * `[skip actions]`, `[actions skip]` anywhere in the message, or a `skip-checks: true` trailer.
 * Pure.
 */

export const SKIP_INSTRUCTIONS = ['[skip ci]', '[ci skip]', '[no ci]', '[skip actions]', '[actions skip]'] as const;

/**
 * GitHub's page does not say whether case matters; any case is taken here (`[Skip CI]` is written
 * by people meaning it, and GitLab documents its own `[skip ci]` as case-insensitive), while the
 * brackets and the single space must be as written.
 */
const BRACKETED = new RegExp(SKIP_INSTRUCTIONS.map((s) => s.replace(/[[\]]/g, '\\$&')).join('|'), 'i');

/**
 * GitHub wants the trailer last, in the message's trailer block (after an empty line). Git usually
 * folds the two empty lines GitHub's page asks for into one, so one is enough here.
 */
const TRAILER = /^skip-checks: ?true$/i;

/** The instruction found, as written in the message, or undefined. */
export function skipInstruction(message: string | undefined): string | undefined {
  if (!message) return undefined;
  const bracketed = BRACKETED.exec(message);
  if (bracketed) return bracketed[0];
  const paragraphs = message.replace(/\r\n?/g, '\n').trim().split(/\n[ \t]*\n/);
  if (paragraphs.length < 2) return undefined;
  const last = paragraphs.at(-1)!.split('\n').at(-1)!.trim();
  return TRAILER.test(last) ? last : undefined;
}

/** The reason a skipped delivery's answer and log line give. */
export function skipReason(instruction: string, commit: string): string {
  return `the head commit ${commit.slice(0, 7)} asks for no build ("${instruction}" in its message)`;
}
