/**
 * dist/THIRD-PARTY-NOTICES.txt, which `npm run build` writes beside the bundle: the bundle carries
 * the code of the packages it imports, so the package redistributes them, and their licences ask
 * it to carry their texts (MIT, ISC and BSD: the copyright and permission notice; Apache-2.0,
 * section 4: a copy of the licence and the contents of the package's NOTICE file). The packages are
 * those whose files the bundle actually includes, from esbuild's metafile (packageRoots), each read
 * from its folder (readBundledPackage), and written once, sorted, with every licence and notice
 * file it ships (thirdPartyNotices), as rollup and Vite write theirs (rollup's
 * build-plugins/generate-license-file.ts, Vite's packages/vite/rollupLicensePlugin.ts, both over
 * rollup-plugin-license, which has no esbuild counterpart here). Pure but for readBundledPackage.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** What esbuild's metafile says of each output: the input files and how many of their bytes it holds. */
export interface BundleMetafile {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/**
 * The folder of each package with a file in the bundle, as the metafile writes it (relative to the
 * build's working directory, with `/`): the path up to the package's name after the last
 * node_modules, so a nested copy (`dockerode/node_modules/tar-fs`) is its own package and a
 * package's inner package.json (`dist-cjs/package.json`, `{"type": "commonjs"}`) is not one. Files
 * tree-shaken to nothing, and inputs of a plugin's namespace (`(disabled):…`), are not in it.
 */
export function packageRoots(metafile: BundleMetafile): string[] {
  const roots = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput === 0 || /^[^/]*:/.test(input)) continue;
      const at = input.lastIndexOf('node_modules/');
      if (at < 0) continue;
      const segments = input.slice(at + 'node_modules/'.length).split('/');
      const name = segments[0]!.startsWith('@') ? segments.slice(0, 2) : segments.slice(0, 1);
      roots.add(`${input.slice(0, at)}node_modules/${name.join('/')}`);
    }
  }
  return [...roots].sort();
}

export interface LegalFile {
  name: string;
  text: string;
}

/** A bundled package as its folder holds it. */
export interface BundledPackage {
  name: string;
  version: string;
  /**
   * package.json's `license` (an SPDX expression, `UNLICENSED` or `SEE LICENSE IN <file>`), or the
   * types of the deprecated `license` object and `licenses` array (npm's docs, package.json,
   * "license"); undefined when it declares none.
   */
  license: string | undefined;
  repository: string | undefined;
  /** Its licence and notice files at the top of its folder, by name. */
  files: LegalFile[];
}

/**
 * A file of the package's top folder that holds its licence or notices: LICENSE and LICENCE, which
 * npm packs whatever their case and extension (npm's docs, package.json, "files"), LICENSE-MIT,
 * UNLICENSE (the Unlicense's own name for it), COPYING, and NOTICE (Apache-2.0, section 4(d)).
 */
const LEGAL_FILE = /^(?:(?:un)?licen[cs]e|copying|notice)(?:[-._].*)?$/i;

/** The package of `root` (a folder), its declared licence and the text of its licence and notice files. */
export function readBundledPackage(root: string): BundledPackage {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const license = declaredLicense(manifest);
  const named = new Set(readdirSync(root).filter((name) => LEGAL_FILE.test(name) && statSync(path.join(root, name)).isFile()));
  // `SEE LICENSE IN <file>`: the file is the licence, whatever its name.
  const seeFile = /^SEE LICEN[CS]E IN (.+)$/i.exec(license ?? '')?.[1]?.trim();
  if (seeFile && existsSync(path.join(root, seeFile))) named.add(seeFile);
  const files = [...named].sort().map((name) => ({ name, text: readFileSync(path.join(root, name), 'utf8') }));
  return { name: String(manifest.name), version: String(manifest.version), license, repository: repositoryUrl(manifest.repository), files };
}

function declaredLicense(manifest: Record<string, unknown>): string | undefined {
  const typeOf = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' ? (value as { type: string }).type : undefined);
  const single = typeOf(manifest.license);
  if (single) return single;
  const list = Array.isArray(manifest.licenses) ? manifest.licenses.map(typeOf).filter((type): type is string => type !== undefined) : [];
  return list.length === 0 ? undefined : list.length === 1 ? list[0] : `(${list.join(' OR ')})`;
}

function repositoryUrl(repository: unknown): string | undefined {
  const url = typeof repository === 'string' ? repository : typeof repository === 'object' && repository !== null ? (repository as { url?: unknown }).url : undefined;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

export interface Notices {
  /** The file's text. */
  text: string;
  /** Packages that grant nothing the file can show: no licence declared and no licence file, or `UNLICENSED` (npm: no right to use it under any terms). The build fails on them. */
  refused: string[];
  /** Packages that declare a licence but ship no licence file: listed with the licence they declare, and a warning. */
  withoutText: string[];
}

const RULE = '='.repeat(80);

/**
 * The notices file of `packages` (each once by name and version, sorted by name, then version),
 * and the packages it cannot give a licence text for. `bundle`: the file they are bundled into.
 */
export function thirdPartyNotices(packages: readonly BundledPackage[], bundle: string): Notices {
  const unique = new Map<string, BundledPackage>();
  for (const pkg of packages) unique.set(`${pkg.name}@${pkg.version}`, pkg);
  const sorted = [...unique.values()].sort((a, b) => (a.name === b.name ? a.version.localeCompare(b.version, 'en', { numeric: true }) : a.name < b.name ? -1 : 1));
  const id = (pkg: BundledPackage) => `${pkg.name}@${pkg.version}`;
  const hasLicenceText = (pkg: BundledPackage) => pkg.files.some((file) => !/^notice/i.test(file.name));
  const refused = sorted.filter((pkg) => pkg.license === 'UNLICENSED' || (pkg.license === undefined && !hasLicenceText(pkg))).map(id);
  const withoutText = sorted.filter((pkg) => pkg.license !== undefined && pkg.license !== 'UNLICENSED' && !hasLicenceText(pkg)).map(id);

  const counts = new Map<string, number>();
  for (const pkg of sorted) counts.set(pkg.license ?? 'none declared', (counts.get(pkg.license ?? 'none declared') ?? 0) + 1);
  const summary = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([license, count]) => `${license} (${count})`);
  const header = [
    'THIRD-PARTY SOFTWARE NOTICES',
    '',
    `${bundle} contains code of the ${sorted.length} packages below, each under its own licence:`,
    ...wrap(summary, 80),
    '',
    'Each package is listed once, by name and version, with the licence its package.json',
    'declares and the text of each licence and notice file it ships (LICENSE, NOTICE, ...).',
  ];
  // A text written once is named after that, as Vite's file groups the packages of one text: most
  // packages of the AWS SDK and Smithy ship the same Apache-2.0 text, 11 kB each: today's file is
  // 240 kB with 65 texts named, 720 kB with them written out.
  const written = new Map<string, string>();
  const entries = sorted.map((pkg) => {
    const lines = [RULE, `${pkg.name} ${pkg.version}`, `License: ${pkg.license ?? 'none declared'}`];
    if (pkg.repository) lines.push(`Repository: ${pkg.repository}`);
    if (!hasLicenceText(pkg)) lines.push('', `The package ships no licence file; its package.json declares ${pkg.license ?? 'no licence'}.`);
    for (const file of pkg.files) {
      const text = file.text.replace(/\r\n?/g, '\n').replace(/^\s*\n|\s+$/g, '');
      const first = written.get(text);
      if (first) lines.push('', `----- ${file.name}: the same text as ${first} above -----`);
      else {
        written.set(text, `the ${file.name} of ${pkg.name} ${pkg.version}`);
        lines.push('', `----- ${file.name} -----`, '', text);
      }
    }
    return lines.join('\n');
  });
  return { text: `${[header.join('\n'), ...entries].join('\n\n')}\n`, refused, withoutText };
}

/** `items`, joined by commas, in lines of at most `width` characters (an item longer stays whole). */
function wrap(items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [index, item] of items.entries()) {
    const word = index === items.length - 1 ? `${item}.` : `${item},`;
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}
