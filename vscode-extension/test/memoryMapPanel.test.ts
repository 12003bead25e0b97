import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { panels } from './vscodeStub';
// Imported after the stub, which replaces `vscode` for these modules.
import { MemoryMapManager } from '../src/memoryMap';
import { SpecialisationChoices } from '../src/logic/specialisationChoice';
import type { ServerController } from '../src/server';

const range = { start: { line: 3, character: 4 }, end: { line: 3, character: 30 } };
const answer = {
  version: 1,
  functions: [
    {
      name: 'simple_add',
      range,
      statements: 2,
      spaces: [{ space: 'Vec', capacity: 196608, used: 32768 }],
      buffers: [{ name: 'tile_x', space: 'Vec', start: 0, size: 32768, firstUse: { index: 0, range }, lastUse: { index: 1, range } }],
    },
  ],
  diagnostics: [],
};

const silentLog = { warn: () => undefined } as unknown as import('vscode').LogOutputChannel;

/** A server whose memory-map answer the test releases when it wants. */
function fakeServer(reply: () => Promise<unknown>): ServerController {
  const none = { dispose: () => undefined };
  return { onPreviewChanged: () => none, onRunning: () => none, request: reply } as unknown as ServerController;
}

function deferred(): { promise: Promise<unknown>; resolve: (value: unknown) => void } {
  let resolve: (value: unknown) => void = () => undefined;
  const promise = new Promise<unknown>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const svgWidth = (page: string): string | undefined => /<svg[^>]* width="(\d+)"/.exec(page)?.[1];
const extensionUri = { path: '/ext' } as unknown as import('vscode').Uri;

describe('MemoryMapManager (with a vscode stub)', () => {
  it('asks for the @pl.jit specialisation chosen for the source, by index and key', async () => {
    const asked: unknown[] = [];
    const none = { dispose: () => undefined };
    const server = {
      onPreviewChanged: () => none,
      onRunning: () => none,
      request: (_method: string, params: unknown) => {
        asked.push(params);
        return Promise.resolve(answer);
      },
    } as unknown as ServerController;
    const choices = new SpecialisationChoices();
    const manager = new MemoryMapManager(extensionUri, server, silentLog, choices);
    await manager.show('file:///k/jit.py', 'scale');
    choices.set('file:///k/jit.py', { index: 2, key: 'a: Tensor[[32, 32], FP16]' });
    manager.refreshSource('file:///k/jit.py');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(asked, [
      { textDocument: { uri: 'file:///k/jit.py' }, function: 'scale' },
      { textDocument: { uri: 'file:///k/jit.py' }, function: 'scale', specialisation: 2, specialisationKey: 'a: Tensor[[32, 32], FP16]' },
    ]);
    manager.dispose();
  });

  it("shows the server's note when the chosen specialisation is gone", async () => {
    const note = "'scale': the chosen specialisation (scale(a: Tensor[[32, 32], FP16])) is no longer in the file; using its first";
    const manager = new MemoryMapManager(extensionUri, fakeServer(() => Promise.resolve({ ...answer, note })), silentLog);
    await manager.show('file:///k/jit.py', 'simple_add');
    const panel = panels.at(-1);
    assert.ok(panel);
    panel.post({ command: 'width', width: 541 });
    const page = panel.pages.at(-1) ?? '';
    assert.ok(page.includes(`<p class="note">note: ${note.replace(/'/g, '&#39;')}</p>`), page);
    manager.dispose();
  });

  it('draws an answer that comes before the page reports its width once, at that width', async () => {
    const manager = new MemoryMapManager(extensionUri, fakeServer(() => Promise.resolve(answer)), silentLog);
    await manager.show('file:///k/simple_add.py', 'simple_add');
    const panel = panels.at(-1);
    assert.ok(panel);
    assert.equal(panel.pages.length, 1, 'the map waits for the width');
    assert.match(panel.pages[0], /Asking the language server for the memory map/);
    panel.post({ command: 'width', width: 541 });
    assert.equal(panel.pages.length, 2);
    assert.equal(svgWidth(panel.pages[1]), '501');
    panel.post({ command: 'width', width: 541 }); // the map page reports the same width
    assert.equal(panel.pages.length, 2, 'the same width draws nothing new');
    manager.dispose();
  });

  it('draws an answer that comes after the width at once, and redraws when the width changes', async () => {
    const reply = deferred();
    const manager = new MemoryMapManager(extensionUri, fakeServer(() => reply.promise), silentLog);
    const shown = manager.show('file:///k/simple_add.py', 'simple_add');
    const panel = panels.at(-1);
    assert.ok(panel);
    panel.post({ command: 'width', width: 700 });
    assert.equal(panel.pages.length, 1, 'no map yet: only the message');
    reply.resolve(answer);
    await shown;
    assert.equal(panel.pages.length, 2);
    assert.equal(svgWidth(panel.pages[1]), '660');
    panel.post({ command: 'width', width: 900 });
    assert.equal(panel.pages.length, 3);
    assert.equal(svgWidth(panel.pages[2]), '860');
    manager.dispose();
  });

  it('shows a failure at once, without waiting for the width', async () => {
    const manager = new MemoryMapManager(extensionUri, fakeServer(() => Promise.reject(new Error('the server stopped'))), silentLog);
    await manager.show('file:///k/simple_add.py', undefined);
    const panel = panels.at(-1);
    assert.ok(panel);
    assert.equal(panel.pages.length, 2);
    assert.match(panel.pages[1], /No memory map for .*: the server stopped\./);
    manager.dispose();
  });

  it('redraws with the toggles the page posts: the scale, a space', async () => {
    const manager = new MemoryMapManager(extensionUri, fakeServer(() => Promise.resolve(answer)), silentLog);
    await manager.show('file:///k/simple_add.py', 'simple_add');
    const panel = panels.at(-1);
    assert.ok(panel);
    panel.post({ command: 'width', width: 700 });
    assert.match(panel.pages.at(-1) ?? '', /data-value="capacity" aria-pressed="true"/);
    panel.post({ command: 'view', view: 'scale', value: 'used' });
    assert.match(panel.pages.at(-1) ?? '', /data-value="used" aria-pressed="true"/);
    assert.match(panel.pages.at(-1) ?? '', /data-name="tile_x"/);
    panel.post({ command: 'view', view: 'space', value: 'Vec' });
    assert.match(panel.pages.at(-1) ?? '', /data-value="Vec" aria-pressed="false"/);
    assert.doesNotMatch(panel.pages.at(-1) ?? '', /data-name="tile_x"/);
    const count = panel.pages.length;
    panel.post({ command: 'view', view: 'scale', value: 'sideways' });
    assert.equal(panel.pages.length, count, 'an unknown choice changes nothing');
    manager.dispose();
  });
});
