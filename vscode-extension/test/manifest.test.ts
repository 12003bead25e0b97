/** The manifest and the code must agree: commands, settings and their defaults, engine pin. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, toServerSettings } from '../src/logic/settings';

const root = join(__dirname, '..', '..');

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  devDependencies: Record<string, string>;
  contributes: {
    commands: { command: string; title: string; category: string }[];
    menus: Record<string, { command: string; when?: string }[]>;
    configuration: { properties: Record<string, { default: unknown; enum?: string[] }> };
    languages: { id: string }[];
    colors: { id: string; defaults: Record<string, string> }[];
  };
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const sources = readdirSync(join(root, 'src'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => readFileSync(join(root, 'src', name), 'utf8'))
  .join('\n');

function version(text: string): number[] {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  assert.ok(match, `no version in ${text}`);
  return match.slice(1, 4).map(Number);
}

/** `{a: {b: 1}}` -> {'ptoc.a.b': 1}; objects listed in `leaves` stay whole. */
function flatten(value: Record<string, unknown>, prefix: string, leaves: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = `${prefix}.${key}`;
    if (typeof inner === 'object' && inner !== null && !leaves.has(name)) {
      Object.assign(out, flatten(inner as Record<string, unknown>, name, leaves));
    } else {
      out[name] = inner;
    }
  }
  return out;
}

describe('package.json', () => {
  it('contributes exactly the commands the code registers, with the documented titles', () => {
    const registered = [...sources.matchAll(/registerCommand\(\s*(?:'([^']+)'|(SHOW_LOG_COMMAND))/g)].map((m) => m[1] ?? 'ptoc.showLog');
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.deepEqual([...registered].sort(), [...contributed].sort());
    const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
    assert.equal(titles['ptoc.restartServer'], 'PyPTO: Restart Language Server');
    assert.equal(titles['ptoc.showGeneratedCpp'], 'PyPTO: Show Generated C++');
    assert.equal(titles['ptoc.showGeneratedMlir'], 'PyPTO: Show Generated MLIR');
    assert.equal(titles['ptoc.showIrAfterPass'], 'PyPTO: Show IR After Pass…');
  });

  it('menus name contributed commands and show preview entries only for PyPTO files', () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const entry of entries) {
        assert.ok(contributed.has(entry.command), `${menu}: ${entry.command}`);
        if (menu !== 'commandPalette') {
          assert.match(entry.when ?? '', /ptoc\.isPyptoFile|resourceScheme == ptoc-preview|view == ptoc\.passes/, `${menu}: ${entry.command}`);
        }
      }
    }
    const titleMenu = manifest.contributes.menus['editor/title'] ?? [];
    assert.deepEqual(
      titleMenu.map((e) => e.command).sort(),
      ['ptoc.showGeneratedCpp', 'ptoc.showGeneratedMlir', 'ptoc.showIrAfterPass', 'ptoc.showMemoryMap', 'ptoc.showPreview'],
    );
    assert.match(sources, /'ptoc\.isPyptoFile'/, 'the context key the menus use is set by the code');
  });

  it("registers the CodeLens commands the server sends, keeping them out of the palette", () => {
    const palette = new Map((manifest.contributes.menus.commandPalette ?? []).map((e) => [e.command, e.when]));
    for (const command of ['ptols.showPreview', 'ptols.showMemoryMap', 'ptols.runFunction']) {
      assert.match(sources, new RegExp(`registerCommand\\('${command.replace('.', '\\.')}'`), command);
      assert.equal(palette.get(command), 'false', command);
    }
    assert.equal(palette.get('ptoc.goToSource'), 'resourceScheme == ptoc-preview');
    const context = manifest.contributes.menus['editor/context'] ?? [];
    assert.deepEqual(context.find((e) => e.command === 'ptoc.goToSource')?.when, 'resourceScheme == ptoc-preview');
  });

  it('contributes the source map highlight colour the code uses, for every theme kind', () => {
    const colour = manifest.contributes.colors.find((c) => c.id === 'ptoc.sourceMapHighlightBackground');
    assert.ok(colour);
    assert.deepEqual(Object.keys(colour.defaults).sort(), ['dark', 'highContrast', 'highContrastLight', 'light']);
    assert.match(sources, /'ptoc\.sourceMapHighlightBackground'/);
  });

  it('declares every setting with the defaults the code assumes', () => {
    const properties = manifest.contributes.configuration.properties;
    const expected = flatten(DEFAULT_SETTINGS as unknown as Record<string, unknown>, 'ptoc', new Set(['ptoc.severityOverrides']));
    assert.deepEqual(Object.keys(properties).sort(), Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(properties[key]?.default, value, key);
    }
  });

  it('offers in its enums exactly the values the code accepts', () => {
    const properties = manifest.contributes.configuration.properties;
    const nested = (key: string, value: unknown): unknown =>
      key.split('.').slice(1).reverse().reduce<unknown>((inner, part) => ({ [part]: inner }), value);
    for (const [key, property] of Object.entries(properties)) {
      for (const value of property.enum ?? []) {
        assert.deepEqual(toServerSettings(nested(key, value)).problems, [], `${key}=${value}`);
      }
      if (property.enum) {
        assert.equal(toServerSettings(nested(key, 'not-a-value')).problems.length, 1, key);
      }
    }
  });

  it('pins @types/vscode no newer than engines.vscode and activates for Python', () => {
    const types = version(manifest.devDependencies['@types/vscode'] ?? '');
    const engine = version(manifest.engines.vscode);
    assert.ok(types[0] === engine[0] && (types[1] ?? 0) <= (engine[1] ?? 0), `${types.join('.')} vs ${engine.join('.')}`);
    assert.deepEqual(manifest.activationEvents, ['onLanguage:python']);
    assert.equal(manifest.main, './out/extension.js');
    assert.ok(manifest.contributes.languages.some((l) => l.id === 'mlir'));
  });

  it('ships no sources, tests or caches in the .vsix', () => {
    const ignored = readFileSync(join(root, '.vscodeignore'), 'utf8').split(/\r?\n/);
    for (const pattern of ['src/**', 'test/**', 'node_modules/**', '.e2e-cache/**', 'e2e/**', 'out-test/**']) {
      assert.ok(ignored.includes(pattern), pattern);
    }
  });
});
