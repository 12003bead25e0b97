import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configurationFor, DEFAULT_SETTINGS, toServerSettings } from '../src/logic/settings';

describe('toServerSettings', () => {
  it('fills every default from nothing', () => {
    for (const raw of [undefined, null, 42, 'x', [], {}]) {
      const { settings, problems } = toServerSettings(raw);
      assert.deepEqual(settings, DEFAULT_SETTINGS);
      assert.deepEqual(problems, []);
    }
  });

  it('passes VS Code nested settings through unchanged when valid', () => {
    const raw = {
      python: ' /opt/py/bin/python ',
      importStrategy: 'fromEnvironment',
      trace: { server: 'verbose' },
      preview: { defaultTarget: 'pto' },
      pipeline: 'ptoas',
      inlayHints: { enabled: false, sync: false, cycles: false, parameterNames: true },
      formatOnSave: true,
      strictAnnotations: true,
      edition: '2026-08',
      severityOverrides: { PTO301: 'warning', PTO100: 'Off' },
    };
    const { settings, problems } = toServerSettings(raw);
    assert.deepEqual(settings, {
      python: '/opt/py/bin/python',
      importStrategy: 'fromEnvironment',
      trace: { server: 'verbose' },
      preview: { defaultTarget: 'pto' },
      pipeline: 'ptoas',
      inlayHints: { enabled: false, sync: false, cycles: false, parameterNames: true },
      formatOnSave: true,
      strictAnnotations: true,
      edition: '2026-08',
      severityOverrides: { PTO301: 'warning', PTO100: 'off' },
    });
    assert.deepEqual(problems, []);
  });

  it('replaces invalid values by defaults and says why', () => {
    const { settings, problems } = toServerSettings({
      importStrategy: 'bundled',
      trace: { server: 'loud' },
      preview: { defaultTarget: 'wasm' },
      pipeline: 3,
      inlayHints: { enabled: 'yes', sync: 0, cycles: 'off', parameterNames: 'no' },
      formatOnSave: 'no',
      strictAnnotations: 'yes',
      edition: '2025-12',
      severityOverrides: { PTO1: 'fatal', '': 'error', PTO2: 2, PTO3: 'hint' },
    });
    assert.deepEqual(settings, { ...DEFAULT_SETTINGS, severityOverrides: { PTO3: 'hint' } });
    assert.deepEqual(problems, [
      'ptoc.importStrategy: "bundled" is not one of useBundled, fromEnvironment; using "useBundled"',
      'ptoc.trace.server: "loud" is not one of off, messages, verbose; using "off"',
      'ptoc.preview.defaultTarget: "wasm" is not one of cce, pto, pto-cpp, ir; using "cce"',
      'ptoc.pipeline: 3 is not one of auto, default, ptoas; using "auto"',
      'ptoc.inlayHints.enabled: "yes" is not true or false; using true',
      'ptoc.inlayHints.sync: 0 is not true or false; using true',
      'ptoc.inlayHints.cycles: "off" is not true or false; using true',
      'ptoc.inlayHints.parameterNames: "no" is not true or false; using false',
      'ptoc.formatOnSave: "no" is not true or false; using false',
      'ptoc.strictAnnotations: "yes" is not true or false; using false',
      'ptoc.edition: "2025-12" is not one of auto, 2026-03, 2026-08; using "auto"',
      'ptoc.severityOverrides: PTO1 -> "fatal" is not one of error, warning, information, hint, off; ignored',
      'ptoc.severityOverrides: an empty diagnostic code is ignored',
      'ptoc.severityOverrides: PTO2 -> 2 is not one of error, warning, information, hint, off; ignored',
    ]);
  });
});

describe('configurationFor', () => {
  const settings = { ...DEFAULT_SETTINGS, pipeline: 'ptoas' as const, severityOverrides: { PTO301: 'off' as const } };
  it('answers the whole section and its parts', () => {
    assert.deepEqual(configurationFor('ptoc', settings), settings);
    assert.equal(configurationFor('ptoc.pipeline', settings), 'ptoas');
    assert.equal(configurationFor('ptoc.preview.defaultTarget', settings), 'cce');
    assert.equal(configurationFor('ptoc.inlayHints.sync', settings), true);
    assert.deepEqual(configurationFor('ptoc.inlayHints', settings), { enabled: true, sync: true, cycles: true, parameterNames: false });
    assert.deepEqual(configurationFor('ptoc.severityOverrides', settings), { PTO301: 'off' });
    assert.equal(configurationFor('ptoc.nonexistent.key', settings), null);
  });
  it('leaves other sections to VS Code', () => {
    assert.equal(configurationFor(undefined, settings), undefined);
    assert.equal(configurationFor('python', settings), undefined);
    assert.equal(configurationFor('ptocx', settings), undefined);
  });
});
