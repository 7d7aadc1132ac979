/** The naming rules Kubernetes applies, checked before any pod exists so the message names the pipeline field. */

export const DNS_LABEL_MAX = 63;
export const DNS_SUBDOMAIN_MAX = 253;

const DNS_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * Step names become pod names and label values, hence DNS-1123 labels. Returns why not, or
 * undefined. Names are quoted with JSON.stringify so a control character in a hostile file is shown
 * escaped, never sent raw to a terminal.
 */
export function dnsLabelProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.length > DNS_LABEL_MAX) return `${JSON.stringify(name)} is ${name.length} characters long; at most ${DNS_LABEL_MAX} are allowed`;
  if (DNS_LABEL.test(name)) return undefined;
  const fixed = name
    .toLowerCase()
    .replace(/[^-a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const hint = fixed !== '' && DNS_LABEL.test(fixed) && fixed.length <= DNS_LABEL_MAX ? ` (e.g. "${fixed}")` : '';
  return `${JSON.stringify(name)} must use only lowercase letters, digits and "-", and start and end with a letter or digit${hint}`;
}

export function dnsSubdomainProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.length > DNS_SUBDOMAIN_MAX) return `${JSON.stringify(name)} is ${name.length} characters long; at most ${DNS_SUBDOMAIN_MAX} are allowed`;
  if (DNS_SUBDOMAIN.test(name)) return undefined;
  return `${JSON.stringify(name)} is not a valid Kubernetes Secret name: use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit`;
}

/**
 * What a deployment's identity becomes in the cluster: its service account, `step-runner-id-NAME`
 * (lib/kube/service-accounts.ts), a DNS-1123 label like a pod's. So a name is a label short enough
 * for the prefix.
 */
export const IDENTITY_SERVICE_ACCOUNT_PREFIX = 'step-runner-id-';
export const IDENTITY_NAME_MAX = DNS_LABEL_MAX - IDENTITY_SERVICE_ACCOUNT_PREFIX.length;

export function identityNameProblem(name: string): string | undefined {
  if (name.length > IDENTITY_NAME_MAX) return `${JSON.stringify(name)} is ${name.length} characters long; an identity's name may have at most ${IDENTITY_NAME_MAX} (its service account is "${IDENTITY_SERVICE_ACCOUNT_PREFIX}NAME")`;
  return dnsLabelProblem(name);
}

export function envNameProblem(name: string): string | undefined {
  if (ENV_NAME.test(name)) return undefined;
  return `"${name}" is not a valid environment variable name: use letters, digits and "_", not starting with a digit`;
}

export function secretKeyProblem(key: string): string | undefined {
  if (key.length > DNS_SUBDOMAIN_MAX) return `"${key}" is longer than ${DNS_SUBDOMAIN_MAX} characters`;
  if (SECRET_KEY.test(key)) return undefined;
  return `"${key}" is not a valid Secret key: use letters, digits, "-", "_" and "."`;
}

const LABEL_NAME = /^(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(?:(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_CHARACTERS = 'letters, digits, "-", "_" and ".", starting and ending with a letter or digit';

/**
 * A label key (a node-selector key, a toleration's taint key), by Kubernetes' qualified-name rule:
 * `[prefix/]name`, the prefix a DNS-1123 subdomain, the name at most 63 characters.
 */
export function labelKeyProblem(key: string): string | undefined {
  if (key === '') return 'must not be empty';
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const quoted = JSON.stringify(key);
  if (prefix !== undefined) {
    if (prefix.includes('/')) return `${quoted} is not a valid label key: at most one "/", between a prefix and a name (e.g. "kubernetes.io/arch")`;
    if (prefix === '' || prefix.length > DNS_SUBDOMAIN_MAX || !DNS_SUBDOMAIN.test(prefix)) {
      return `${quoted} is not a valid label key: its prefix (before "/") must be a DNS subdomain of lowercase letters, digits, "-" and ".", at most ${DNS_SUBDOMAIN_MAX} characters (e.g. "kubernetes.io/arch")`;
    }
  }
  if (name === '') return `${quoted} is not a valid label key: it needs a name after the "/"`;
  if (name.length > DNS_LABEL_MAX) return `${quoted} is not a valid label key: its name is ${name.length} characters long; at most ${DNS_LABEL_MAX} are allowed`;
  if (!LABEL_NAME.test(name)) return `${quoted} is not a valid label key: its name must use only ${LABEL_CHARACTERS}`;
  return undefined;
}

/** A label value (a node-selector value, a toleration's value): may be empty. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > DNS_LABEL_MAX) return `${JSON.stringify(value)} is ${value.length} characters long; a label value may have at most ${DNS_LABEL_MAX}`;
  if (LABEL_VALUE.test(value)) return undefined;
  return `${JSON.stringify(value)} is not a valid label value: use only ${LABEL_CHARACTERS} (or "" for an empty value)`;
}
