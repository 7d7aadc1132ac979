/**
 * `npm run build` (run by `npm pack` before it packs): the command as the package ships it, in
 * dist/. lib/cli/main.ts, the modules it imports (dynamic imports included) and the packages they
 * use are bundled by esbuild into one ES module, dist/lib/cli/main.js, as serverless.yml bundles each
 * Lambda: an installed `step-runner` starts with no TypeScript compiler, and `npm install -g` of the
 * tarball unpacks one file instead of 218 packages of 16,700 files (130 MB, most of it types, maps
 * and the Kubernetes client's generated API), which took 15 s on an idle machine of the kind CI runs
 * on (bench/install.ts). The files the code reads at run time are copied to dist/ at the places
 * they have in a checkout, and each `new URL('./x', import.meta.url)` of a module is rewritten to
 * lead from the bundle's place to the same file (moduleUrls below), so the code reads the same file
 * in a checkout and installed. test/install-as-command.e2e.test.ts fails when one is missing.
 *
 * The one package left a dependency is @swimlane/docker-reference, which image-catalog.ts loads with
 * createRequire (CommonJS, loaded the same way by Node, jest and tsx), a call esbuild leaves to run
 * time.
 *
 * The bundle redistributes the packages it includes, so it ships their licence and notice texts in
 * dist/THIRD-PARTY-NOTICES.txt (scripts/third-party-notices.ts), from esbuild's metafile: what the
 * bundle holds, not what package.json lists. A package that declares a licence but ships no text
 * of it is named in a warning and in the file (the licence is granted, the file is missing
 * upstream: a build cannot mend that, and failing would stop every `npm pack` on a dependency's
 * update); one that declares none and ships none, or `UNLICENSED`, fails the build, since nothing
 * then says the package may be redistributed at all.
 */
import { build, type Plugin } from 'esbuild';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoots, readBundledPackage, thirdPartyNotices } from './third-party-notices.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const ENTRY = 'lib/cli/main.ts';
/** Where the bundle is, as a place of the checkout: bin/step-runner.js imports dist/lib/cli/main.js. */
const BUNDLE_DIR = path.join(ROOT, path.dirname(ENTRY));
const BUNDLE = path.join('dist', ENTRY.replace(/\.ts$/, '.js'));
/** The bundled packages' licences and notices, shipped with dist/ (package.json "files"). */
const NOTICES = path.join('dist', 'THIRD-PARTY-NOTICES.txt');

/** Read at run time, by path from the module that reads it (not imported, so not bundled). */
const RUNTIME_FILES = [
  'serverless.yml', // the local Lambda host's memory and timeouts (lib/emulators/lambda/deployed-functions.ts)
  'examples/hello.yml', // `serve`'s example build
  'lib/workflow/state-machine.asl.yml', // the definition the local executor runs
  'lib/emulators/kubernetes/images/catalog.json', // the embedded cluster's image catalog
  'lib/emulators/kubernetes/images/README.md', // its format, which `run --help` points at
  'lib/console/assets/console.js', // the console page's script and style
  'lib/console/assets/console.css',
];

/**
 * `new URL('../x', import.meta.url)` (or a template's leading `./dir/`) in a module of the checkout:
 * bundled, import.meta.url is the bundle's, so the path is made relative to the bundle's place
 * instead, leading to the same file of dist/ (which mirrors the checkout).
 */
const moduleUrls: Plugin = {
  name: 'module-urls',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(path.join(ROOT, 'lib') + path.sep)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const rebased = (relative: string) => {
        const target = path.relative(BUNDLE_DIR, path.resolve(path.dirname(args.path), relative)).split(path.sep).join('/');
        const kept = target.startsWith('.') ? target : `./${target}`;
        return relative.endsWith('/') ? `${kept}/` : kept;
      };
      const contents = text.replace(/new URL\((['"`])(\.{1,2}\/[^'"`$]*)/g, (_match, quote: string, relative: string) => `new URL(${quote}${rebased(relative)}`);
      return { contents, loader: 'ts' };
    });
  },
};

rmSync(DIST, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: [path.join(ROOT, ENTRY)],
  outfile: path.join(ROOT, BUNDLE),
  // The metafile's paths are relative to this folder.
  absWorkingDir: ROOT,
  metafile: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // Node 20, the oldest the package supports (package.json engines).
  target: 'node20',
  // The packages' ESM builds where they have one, as serverless.yml's bundles.
  mainFields: ['module', 'main'],
  // Bundled CommonJS packages call require() for Node's built-ins, and some name __dirname (ssh2's
  // WebAssembly loader as it starts; grpc-js's and dockerode's .proto files only in calls the runner
  // never makes): an ES module has neither.
  banner: {
    js: [
      "import { createRequire as __stepRunnerRequire } from 'node:module';",
      "import { dirname as __stepRunnerDirname } from 'node:path';",
      "import { fileURLToPath as __stepRunnerPath } from 'node:url';",
      'const require = __stepRunnerRequire(import.meta.url);',
      'const __filename = __stepRunnerPath(import.meta.url);',
      'const __dirname = __stepRunnerDirname(__filename);',
    ].join(' '),
  },
  // Native addons (ssh2's, through dockerode, for Docker over SSH) are compiled by install scripts,
  // which the README's install line skips: each is required inside a try, and ssh2 runs without it.
  external: ['*.node'],
  plugins: [moduleUrls],
  logLevel: 'error',
});
for (const file of RUNTIME_FILES) cpSync(path.join(ROOT, file), path.join(DIST, file));

const notices = thirdPartyNotices(
  packageRoots(metafile).map((root) => readBundledPackage(path.resolve(ROOT, root))),
  BUNDLE.split(path.sep).join('/'),
);
if (notices.withoutText.length > 0) {
  console.warn(`warning: ${notices.withoutText.length} bundled packages ship no licence file; ${NOTICES} names each with the licence its package.json declares: ${notices.withoutText.join(', ')}`);
}
if (notices.refused.length > 0) {
  console.error(`error: bundled packages that grant no licence to redistribute them (none declared and no licence file, or UNLICENSED): ${notices.refused.join(', ')}`);
  process.exit(1);
}
writeFileSync(path.join(ROOT, NOTICES), notices.text);
