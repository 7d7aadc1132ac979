/**
 * A deployment's default pod settings (STEP_TOLERATIONS, STEP_NODE_SELECTOR, STEP_PULL_SECRETS),
 * checked by the pipeline's own schema and rules, so a setting reads as the pipeline key does.
 */
import type * as z from 'zod';
import { nodeSelectorKeyProblems, tolerationRuleProblems } from './cross-step-rules.js';
import { asToleration } from './normalise.js';
import { isRecord, settingSchemas, type PathSegment } from './schema.js';
import type { Toleration } from './types.js';

const { tolerations, nodeSelector, pullSecrets } = settingSchemas;

export type SettingCheck<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * A deployment's default tolerations (STEP_TOLERATIONS, parsed JSON), by the pipeline's own rules
 * and spelling (`toleration-seconds`; `tolerationSeconds`, Kubernetes' spelling, is taken too).
 */
export function checkTolerations(value: unknown): SettingCheck<Toleration[]> {
  const spelled = Array.isArray(value)
    ? value.map((entry: unknown) => {
        if (!isRecord(entry) || !('tolerationSeconds' in entry)) return entry;
        const { tolerationSeconds, ...rest } = entry;
        return { ...rest, 'toleration-seconds': tolerationSeconds };
      })
    : value;
  const parsed = tolerations.safeParse(spelled);
  const problems = [...(parsed.success ? [] : settingProblems(parsed.error)), ...tolerationRuleProblems(spelled).map(settingProblem)];
  return parsed.success && problems.length === 0 ? { ok: true, value: parsed.data.map(asToleration) } : { ok: false, problems };
}

/** A deployment's default node selector (STEP_NODE_SELECTOR, parsed JSON), by the pipeline's rules. */
export function checkNodeSelector(value: unknown): SettingCheck<Record<string, string>> {
  const parsed = nodeSelector.safeParse(value);
  const problems = [...(parsed.success ? [] : settingProblems(parsed.error)), ...nodeSelectorKeyProblems(value).map(settingProblem)];
  return parsed.success && problems.length === 0 ? { ok: true, value: parsed.data } : { ok: false, problems };
}

/** A deployment's default pull secrets (STEP_PULL_SECRETS, split at commas). */
export function checkPullSecrets(value: unknown): SettingCheck<string[]> {
  const parsed = pullSecrets.safeParse(value);
  return parsed.success ? { ok: true, value: [...new Set(parsed.data)] } : { ok: false, problems: settingProblems(parsed.error) };
}

function settingProblems(error: z.ZodError): string[] {
  return error.issues.map((issue) => settingProblem({ path: issue.path.filter((segment): segment is PathSegment => typeof segment !== 'symbol'), message: issue.message }));
}

function settingProblem({ path, message }: { path: PathSegment[]; message: string }): string {
  const at = path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text === '' ? segment : `${text}.${segment}`), '');
  return at === '' ? message : `${at}: ${message}`;
}
