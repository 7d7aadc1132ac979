/**
 * dist/THIRD-PARTY-NOTICES.txt's making (scripts/third-party-notices.ts), over a metafile written
 * here and the package folders of test/fixtures/third-party-notices: which packages the bundle
 * holds, what each one's folder says of its licence, and the file a reader gets. That the packed
 * package ships the file, for the packages really bundled, is test/install-as-command.e2e.test.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoots, readBundledPackage, thirdPartyNotices, type BundledPackage } from '../scripts/third-party-notices.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/third-party-notices/', import.meta.url));
const read = (folder: string) => readBundledPackage(path.join(FIXTURES, folder));

describe('the packages a bundle holds, from its metafile', () => {
  it('is each folder after the last node_modules, once, for the files the bundle keeps bytes of', () => {
    const inputs = {
      'lib/cli/main.ts': 1200,
      'node_modules/ws/lib/websocket.js': 500,
      'node_modules/ws/wrapper.mjs': 40,
      'node_modules/@aws-sdk/client-s3/dist-es/S3Client.js': 900,
      'node_modules/@aws-sdk/client-s3/dist-es/commands/index.js': 10,
      // A nested copy is a package of its own; the outer one is in the bundle only if its own files are.
      'node_modules/dockerode/node_modules/tar-fs/index.js': 300,
      'node_modules/dockerode/lib/docker.js': 700,
      // A worktree's node_modules that is a link: esbuild writes the path it resolved to.
      '../../main/node_modules/@grpc/grpc-js/node_modules/@grpc/proto-loader/build/src/index.js': 80,
      // Tree-shaken to nothing: not in the bundle.
      'node_modules/@smithy/types/dist-es/auth/auth.js': 0,
      // A plugin's namespace, no file of a package.
      '(disabled):node_modules/ws/lib/stream.js': 20,
    };
    const metafile = { outputs: { 'dist/lib/cli/main.js': { inputs: Object.fromEntries(Object.entries(inputs).map(([input, bytesInOutput]) => [input, { bytesInOutput }])) } } };
    expect(packageRoots(metafile)).toEqual([
      '../../main/node_modules/@grpc/grpc-js/node_modules/@grpc/proto-loader',
      'node_modules/@aws-sdk/client-s3',
      'node_modules/dockerode',
      'node_modules/dockerode/node_modules/tar-fs',
      'node_modules/ws',
    ]);
  });
});

describe("a bundled package's folder", () => {
  it.each<[string, Partial<BundledPackage>, string[]]>([
    ['apache-with-notice', { name: '@fixture/apache', version: '2.0.0', license: 'Apache-2.0', repository: 'https://example.com/apache.git' }, ['LICENSE', 'NOTICE.txt']],
    // Its README and the package.json of dist-cjs/ are not licence files.
    ['mit-crlf', { name: 'mit-crlf', license: 'MIT', repository: 'github:example/mit-crlf' }, ['LICENSE.md']],
    // npm's deprecated `licenses` array: its types, either of them.
    ['legacy-licenses', { license: '(MIT OR BSD-3-Clause)', repository: undefined }, ['LICENCE-BSD']],
    // `SEE LICENSE IN <file>`: that file, whatever its name.
    ['see-license', { license: 'SEE LICENSE IN TERMS.txt' }, ['TERMS.txt']],
    ['no-text', { license: 'ISC' }, []],
    ['undeclared', { license: undefined }, []],
  ])('%s: declares %j, its texts in %j', (folder, declared, files) => {
    const pkg = read(folder);
    expect(pkg).toMatchObject(declared);
    expect(pkg.files.map((file) => file.name)).toEqual(files);
  });
});

describe('the notices file', () => {
  const packages = () => ['mit-crlf', 'apache-with-notice', 'see-license', 'apache-same-text', 'legacy-licenses', 'mit-crlf'].map(read);
  /** The file's entries by their heading line (`name version`). */
  const entries = (text: string) => new Map(text.split(`\n${'='.repeat(80)}\n`).slice(1).map((entry) => [entry.slice(0, entry.indexOf('\n')), entry]));

  it('lists each package once, sorted by name, with its declared licence and every licence and notice text it ships', () => {
    const { text, refused, withoutText } = thirdPartyNotices(packages(), 'dist/lib/cli/main.js');
    expect([...entries(text).keys()]).toEqual(['@fixture/apache 2.0.0', '@fixture/apache-too 1.0.0', 'legacy-licenses 0.3.1', 'mit-crlf 1.10.0', 'see-license 4.0.0']);
    // The licences and how many packages have each, in lines of at most 80 characters.
    expect(text).toMatch(/^THIRD-PARTY SOFTWARE NOTICES\n\ndist\/lib\/cli\/main\.js contains code of the 5 packages below, each under its own licence:\nApache-2.0 \(2\), \(MIT OR BSD-3-Clause\) \(1\), MIT \(1\),\nSEE LICENSE IN TERMS\.txt \(1\)\.\n\n/);
    const apache = entries(text).get('@fixture/apache 2.0.0')!;
    expect(apache).toContain('License: Apache-2.0\nRepository: https://example.com/apache.git\n');
    // Apache-2.0, section 4(d): the NOTICE file's contents go with the licence.
    expect(apache).toContain('\n----- NOTICE.txt -----\n\nFixture Apache\nCopyright 2024 Example Corp.');
    expect(apache).toContain('\n----- LICENSE -----\n\n                                 Apache License\n                           Version 2.0, January 2004\n');
    // A text already given is named, not repeated.
    expect(entries(text).get('@fixture/apache-too 1.0.0')).toContain('\n----- LICENSE: the same text as the LICENSE of @fixture/apache 2.0.0 above -----');
    expect(text.match(/Version 2\.0, January 2004/g)).toHaveLength(1);
    // Windows line ends as the file's.
    expect(entries(text).get('mit-crlf 1.10.0')).toContain('\n----- LICENSE.md -----\n\nMIT License\n\nCopyright (c) 2020 Example Author\n');
    expect(text).not.toContain('\r');
    expect(entries(text).get('see-license 4.0.0')).toContain('----- TERMS.txt -----\n\nThe Example Terms');
    expect({ refused, withoutText }).toEqual({ refused: [], withoutText: [] });
  });

  it('names a package that declares a licence but ships no text of it, and refuses one that grants nothing', () => {
    const { text, refused, withoutText } = thirdPartyNotices([...packages(), ...['no-text', 'undeclared', 'unlicensed'].map(read)], 'bundle.js');
    expect(withoutText).toEqual(['no-text@1.0.0']);
    expect(entries(text).get('no-text 1.0.0')).toBe('no-text 1.0.0\nLicense: ISC\n\nThe package ships no licence file; its package.json declares ISC.\n');
    // No licence and no text; UNLICENSED (npm: no right to use it under any terms), whatever its files say.
    expect(refused).toEqual(['undeclared@0.0.1', 'unlicensed@1.0.0']);
  });

  it('is the same file for the same packages in any order', () => {
    const forward = packages();
    expect(thirdPartyNotices([...forward].reverse(), 'b.js').text).toBe(thirdPartyNotices(forward, 'b.js').text);
  });
});
