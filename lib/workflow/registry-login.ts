/**
 * A build step's login to the ECR registries it pushes to, from its identity (issue 39): LaunchStep
 * asks ECR's GetAuthorizationToken, once per region, with the credentials EKS Pod Identity gives
 * the step's pod (IdentityCredentials: EKS Auth on AWS, the local Pod Identity agent locally), and
 * hands the pod the answer as a registry login Secret (lib/kube/registry-login-secret.ts), mounted
 * where buildah reads its logins (build-container.ts registryAuth), over the first pull secret's.
 *
 * Why here and not in the build pod: the pod gets a registry token (ECR only, 12 hours), never the
 * role's credentials; the builder image needs nothing AWS (no CLI, no signer: any buildah image
 * does); the token is in no command line, environment variable, log or state (only the Secret's
 * name is), as the step's AWS secrets are not (aws-secrets.ts); and an identity that may not log
 * in fails the step before its pod, ImagePushFailed with AWS's words, instead of after the build.
 */
import { ErrorNames, StepRunnerError } from '../contract/index.js';
import type { IdentityCredentials } from '../contract/aws-credentials.js';
import { DOCKER_CONFIG_KEY, identityServiceAccount, registryLoginSecretManifest, type BoundPod, type StepCluster } from '../kube/index.js';
import type { Step, StepBuild } from '../pipeline/index.js';
import { ecrAuthorization, ecrRegistriesOf, withRegistryAuths, type EcrAuthorization, type EcrLoginOptions, type EcrRegistryHost } from '../registry/index.js';
import type { TaskLog } from './task-log.js';
import { awsWords } from './aws-secrets.js';

export class ImagePushFailed extends StepRunnerError {
  override readonly name = ErrorNames.ImagePushFailed;
}

/**
 * What the identity's role needs to push (docs.aws.amazon.com/AmazonECR/latest/userguide/image-push-iam.html),
 * and to read a cache or a base image back (BatchGetImage, GetDownloadUrlForLayer: the pull's).
 */
export const ECR_PUSH_ACTIONS = ['ecr:GetAuthorizationToken', 'ecr:BatchCheckLayerAvailability', 'ecr:InitiateLayerUpload', 'ecr:UploadLayerPart', 'ecr:CompleteLayerUpload', 'ecr:PutImage', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'];

/** The references a build logs in for: the tags it pushes, and its cache's repository (read, and maybe written). Pure. */
export function registryReferences(build: Pick<StepBuild, 'tags' | 'push' | 'cache'>): string[] {
  return [...(build.push ? build.tags : []), ...(build.cache ? [build.cache.repository] : [])];
}

/** The ECR registries a build step logs in to with its identity; none without one (its pull secrets then log it in). Pure. */
export function ecrLoginRegistries(step: Pick<Step, 'build' | 'identity'>): EcrRegistryHost[] {
  return step.build && step.identity !== undefined ? ecrRegistriesOf(registryReferences(step.build)) : [];
}

/** Who is pushing where, for a Cause: `"deploy" ... push of team/app to HOST`. */
function target(registries: readonly EcrRegistryHost[]): string {
  return registries.map((registry) => `${registry.repositories.join(', ')} in ${registry.host}`).join('; ');
}

export interface RegistryLoginInput {
  step: Pick<Step, 'name' | 'build' | 'identity'>;
  buildId: string;
  namespace: string;
  /** The step's pod, made gated (LaunchStep), and a token bound to it (Pod Identity's kubernetes-pod-name and -uid session tags). */
  pod: BoundPod;
  podToken: () => Promise<string>;
  /** The pod's pull secrets, the first of which the builder would log in with otherwise. */
  pullSecrets: readonly string[];
  identityCredentials: IdentityCredentials | undefined;
  cluster: Pick<StepCluster, 'readSecretValues' | 'ensureRegistryLoginSecret'>;
  log: Pick<TaskLog, 'info'>;
  /** ECR's API call (tests: moto, or a stub); default ecrAuthorization. */
  authorize?: (options: EcrLoginOptions) => Promise<EcrAuthorization>;
}

/**
 * The registry login Secret for a build step that pushes to ECR as an identity: its name, or
 * undefined when the step needs none (no identity, or no ECR registry). Throws ImagePushFailed,
 * naming the identity, the repositories and AWS's words, when the identity may not log in.
 */
export async function stepRegistryLogin(input: RegistryLoginInput): Promise<string | undefined> {
  const { step } = input;
  const registries = ecrLoginRegistries(step);
  if (registries.length === 0 || step.identity === undefined) return undefined;
  const identity = step.identity;
  if (!input.identityCredentials) {
    throw new ImagePushFailed(`Step "${step.name}" cannot log in to ECR to push ${target(registries)}: this runner cannot get credentials for the identity "${identity}" (no Pod Identity credentials are configured).`);
  }
  const credentials = input.identityCredentials({ identity, serviceAccount: identityServiceAccount(identity), namespace: input.namespace, podName: input.pod.name, podUid: input.pod.uid, podToken: input.podToken });
  const authorize = input.authorize ?? ecrAuthorization;
  const auths: Record<string, string> = {};
  const byRegion = new Map<string, EcrAuthorization>();
  for (const registry of registries) {
    let login = byRegion.get(registry.region);
    if (!login) {
      login = await authorize({ region: registry.region, credentials }).catch((error: unknown) => {
        throw new ImagePushFailed(
          `Step "${step.name}" could not log in to ECR as the identity "${identity}" to push ${target(registries.filter((r) => r.region === registry.region))}: ` +
            `GetAuthorizationToken in ${registry.region}: ${awsWords(error).replace(/\.?$/, '.')} The identity's role needs ${ECR_PUSH_ACTIONS.join(', ')} on the repositories (GetAuthorizationToken on "*").`,
          { cause: error },
        );
      });
      byRegion.set(registry.region, login);
    }
    auths[registry.host] = login.auth;
  }
  const [first] = [...new Set(input.pullSecrets)];
  const base = first !== undefined ? (await input.cluster.readSecretValues(input.namespace, [{ env: DOCKER_CONFIG_KEY, secret: first, key: DOCKER_CONFIG_KEY }]))[0] : undefined;
  const secret = await input.cluster.ensureRegistryLoginSecret(
    registryLoginSecretManifest({ buildId: input.buildId, namespace: input.namespace, step: step.name, dockerConfig: withRegistryAuths(base, auths) }),
  );
  // Names and times only: the token stays in the Secret.
  const until = [...byRegion.values()].map((login) => login.expiresAt).filter((at): at is Date => at !== undefined && !Number.isNaN(at.getTime()));
  input.log.info(
    `Step "${step.name}": logged in to ECR ${registries.map((r) => r.host).join(', ')} as the identity "${identity}"` +
      `${until.length > 0 ? ` (valid until ${new Date(Math.min(...until.map((at) => at.getTime()))).toISOString()})` : ''}${base !== undefined ? `, over pull secret ${first}'s logins` : ''}, in secret ${secret}`,
    { step: step.name },
  );
  return secret;
}
