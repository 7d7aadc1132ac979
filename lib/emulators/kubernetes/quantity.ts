/** Kubernetes resource quantities ("500m", "2", "512Mi", "1G", "1e3") as plain numbers. */

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

const SUFFIXES: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** The quantity's value (cpu in cores, memory in bytes), or undefined when it is not a quantity. */
export function parseQuantity(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, number = '', suffix = ''] = match;
  const base = Number(number);
  if (Number.isNaN(base)) return undefined;
  if (/^[eE][-+]?[0-9]+$/.test(suffix)) return base * 10 ** Number(suffix.slice(1));
  const factor = SUFFIXES[suffix];
  return factor === undefined ? undefined : base * factor;
}
