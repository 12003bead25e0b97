import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { created, StatusBarAlignment } from './vscodeStub';
// Imported after the stub, which replaces `vscode` for this module.
import { SHOW_LOG_COMMAND, StatusBar } from '../src/statusBar';

describe('StatusBar (with a vscode stub)', () => {
  it('starts hidden, shows the log on click, and appears only for PyPTO editors', () => {
    const bar = new StatusBar();
    const item = created.at(-1);
    assert.ok(item);
    assert.equal(item.id, 'ptoc.status');
    assert.equal(item.alignment, StatusBarAlignment.Left);
    assert.equal(item.command, SHOW_LOG_COMMAND);
    assert.equal(item.visible, false);
    assert.equal(item.text, '$(circle-slash) PyPTO');
    bar.setRelevant(true);
    assert.equal(item.visible, true);
    bar.setRelevant(false);
    assert.equal(item.visible, false);
    bar.dispose();
    assert.equal(item.disposed, true);
  });

  it('follows the server through starting, analysing, ready and failed', () => {
    const bar = new StatusBar();
    const item = created.at(-1);
    assert.ok(item);
    bar.setRelevant(true);
    bar.apply({ kind: 'starting' });
    assert.equal(item.text, '$(loading~spin) PyPTO');
    bar.apply({ kind: 'running' });
    assert.equal(item.text, '$(check) PyPTO');
    bar.apply({ kind: 'analysis', state: 'analysing', uri: 'file:///k.py' });
    assert.equal(item.text, '$(sync~spin) PyPTO');
    assert.equal(bar.current.phase, 'analysing');
    bar.apply({ kind: 'analysis', state: 'ready', uri: 'file:///k.py' });
    assert.equal(item.text, '$(check) PyPTO');
    const background = (): string | undefined => item.backgroundColor?.id;
    assert.equal(background(), undefined);
    bar.apply({ kind: 'failed', detail: 'ptoc is not installed' });
    assert.equal(item.text, '$(error) PyPTO');
    assert.equal(background(), 'statusBarItem.errorBackground');
    assert.equal(item.tooltip, 'PyPTO language server: failed (ptoc is not installed). Click to show the PyPTO log.');
    assert.deepEqual(item.accessibilityInformation, { label: 'PyPTO language server: failed (ptoc is not installed)' });
  });
});
