import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { panels } from './vscodeStub';
// Imported after the stub, which replaces `vscode` for these modules.
import type { ServerController } from '../src/server';
import { timelinePanels } from '../src/timeline';
import { SIMPLE_ADD_ANSWER } from './timelineAnswer';

const silentLog = { warn: () => undefined } as unknown as import('vscode').LogOutputChannel;
const extensionUri = { path: '/ext' } as unknown as import('vscode').Uri;

function fakeServer(reply: (method: string, params: unknown) => Promise<unknown>, asked: unknown[]): ServerController {
  const none = { dispose: () => undefined };
  const request = (method: string, params: unknown): Promise<unknown> => {
    asked.push([method, params]);
    return reply(method, params);
  };
  return { onPreviewChanged: () => none, onRunning: () => none, request } as unknown as ServerController;
}

describe('the timeline panels (with a vscode stub)', () => {
  it('asks ptols/timeline for the function and draws it at the width the page reports', async () => {
    const asked: unknown[] = [];
    const manager = timelinePanels(extensionUri, fakeServer(() => Promise.resolve(SIMPLE_ADD_ANSWER), asked), silentLog);
    await manager.show('file:///k/simple_add.py', 'simple_add');
    assert.deepEqual(asked, [['ptols/timeline', { textDocument: { uri: 'file:///k/simple_add.py' }, function: 'simple_add' }]]);
    const panel = panels.at(-1);
    assert.ok(panel);
    assert.equal(panel.pages.length, 1, 'the timeline waits for the width');
    assert.match(panel.pages[0], /Asking the language server for the timeline of .*simple_add\.py/);
    panel.post({ command: 'width', width: 741 });
    assert.equal(panel.pages.length, 2);
    assert.match(panel.pages[1], /<svg[^>]* width="701"/);
    assert.match(panel.pages[1], /src="webview:\/ext\/media\/memoryMap\.js"/);
    await manager.show('file:///k/simple_add.py', 'simple_add'); // the same panel, asked again
    assert.equal(panels.at(-1), panel);
    assert.equal(asked.length, 2);
    manager.dispose();
  });

  it('shows a failure at once', async () => {
    const manager = timelinePanels(extensionUri, fakeServer(() => Promise.reject(new Error('the server stopped')), []), silentLog);
    await manager.show('file:///k/simple_add.py', undefined);
    const panel = panels.at(-1);
    assert.ok(panel);
    assert.match(panel.pages.at(-1) ?? '', /No timeline for .*simple_add\.py: the server stopped\./);
    manager.dispose();
  });
});
