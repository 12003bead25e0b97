// End-to-end test in a real VS Code (code-server) driven by Playwright and Debian chromium:
// diagnostics in the Problems panel, a hover with the deduced type, live previews, and the
// kernel views of issue #16 (CodeLens, source ↔ generated code, memory map, Run).
//
//   npm run test:e2e                       # PTOC_PYTHON defaults to <repo>/.venv/bin/python
//   npm run test:e2e -- --screenshots      # also refresh images/ for the README
//   npm run test:e2e -- --only=kernel-views   # just the #16 part (quicker while working on it)
//   npm run test:e2e -- --only=bundled        # just the .vsix's own ptoc on a bare Python
//
// Everything it installs goes to .e2e-cache/ (gitignored); chromium comes from apt-get.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CHROMIUM, CODE_SERVER_VERSION, ensureCodeServer, ensureDebianPackages, ensureNode24 } from './setup.mjs';
import taskGraph from './task_graph.mjs';
import timeline from './timeline.mjs';
import jit from './jit.mjs';
import explorer from './explorer.mjs';
import semanticColours from './semantic_colours.mjs';
import { SERVER_TIMEOUT, extensionDir, log, results, normalise, editorTexts, waitForEditorText, waitForFile, wordPosition, scrollPreviewToEnd, waitForScrolledText, quickOpen, runCommand, replaceInEditor, screenshot, extensionLog, findFiles, windowState, group, waitForHighlight, clickWord, waitForCursorLine, lens, memoryMapFrame } from './workbench.mjs';

const repo = resolve(extensionDir, '..');
const cache = join(extensionDir, '.e2e-cache');
const python = process.env.PTOC_PYTHON || join(repo, '.venv', 'bin', 'python');
// Run builds against pto-isa: the checkout beside the repository, as scripts/test.sh sets it.
const vendoredPtoIsa = resolve(repo, '..', 'shared', 'vendor', 'pto-isa');
if (!process.env.PTO_ISA_ROOT && existsSync(vendoredPtoIsa)) {
  process.env.PTO_ISA_ROOT = vendoredPtoIsa;
}
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
// Scenarios kept in modules of their own (e2e/<name>.mjs), run in the environment session after
// the kernel views, in this order; `--only=<name>` runs one. Each is `(page, check, context)`.
const MORE_VIEWS = { 'semantic-colours': semanticColours, timeline, explorer, jit, 'task-graph': taskGraph };
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];


function sh(command, args, options = {}) {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} failed (exit ${result.status ?? result.signal})`);
  }
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForHealth(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** The kernel with a type error: tile_y becomes 64x64, so pl.add(tile_x, tile_y) mismatches. */
function injectShapeError(text) {
  const from = 'tile_y: pl.Tile[[128, 64], pl.FP32] = pl.load(y, [0, 0], [128, 64])';
  const to = 'tile_y: pl.Tile[[64, 64], pl.FP32] = pl.load(y, [0, 0], [64, 64])';
  if (!text.includes(from)) {
    throw new Error('examples/simple_add.py changed: update the e2e error injection');
  }
  return text.replace(from, to);
}

function prepareWorkspace(root) {
  const workspace = join(root, 'kernels');
  mkdirSync(workspace, { recursive: true });
  const example = join(repo, 'examples', 'simple_add.py');
  copyFileSync(example, join(workspace, 'simple_add.py'));
  writeFileSync(join(workspace, 'broken_add.py'), injectShapeError(readFileSync(example, 'utf8')));
  writeFileSync(join(workspace, 'plain.py'), 'print("not a kernel")\n');
  copyFileSync(example, join(workspace, 'mapped_add.py'));
  copyFileSync(example, join(workspace, 'timed_add.py')); // e2e/timeline.mjs
  copyFileSync(join(repo, 'examples', 'jit_tile_add.py'), join(workspace, 'jit_add.py')); // e2e/jit.mjs
  copyFileSync(example, join(workspace, 'semantic_add.py')); // e2e/semantic_colours.mjs
  const kernelImport = 'import pypto.language as pl\n';
  if (!readFileSync(example, 'utf8').includes(kernelImport)) {
    throw new Error('examples/simple_add.py changed: update the e2e grammar_add.py');
  }
  writeFileSync(join(workspace, 'grammar_add.py'), readFileSync(example, 'utf8').replace(kernelImport, ''));
  // Cannot be compared: without C++23's std::bfloat16_t the CPU simulator's bfloat16_t is a
  // _Float16 placeholder (see tests/execution/matrix.py, NO_SIM_BF16), and Run says so.
  writeFileSync(join(workspace, 'bf16_add.py'), readFileSync(example, 'utf8').replaceAll('pl.FP32', 'pl.BF16'));
  return workspace;
}

/** `machine`: the settings only the machine may set in a remote window (ptoc.python, ptoc.importStrategy). */
function writeUserSettings(userDataDir, machine) {
  const settings = {
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.colorTheme': 'Default Dark Modern',
    'security.workspace.trust.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'git.enabled': false,
    'editor.minimap.enabled': false,
    'editor.hover.delay': 200,
    'window.zoomLevel': 0,
    ...machine,
    'ptoc.formatOnSave': true,
    // In a browser VS Code saves edits after a second by default; then the kernel on disk would
    // already hold what the format-on-save check expects before that check saves anything.
    'files.autoSave': 'off',
    'ptoc.trace.server': 'messages',
  };
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  // ptoc.python is machine-overridable: in code-server (a remote window) only the machine's
  // settings may set it, as with any remote.
  mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
  writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));
}

const statusItem = (page, state) => page.locator(`.statusbar-item[aria-label^="PyPTO language server: ${state}"]`);

async function openWorkbench(page, workspace, port) {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1_500); // let the workbench finish restoring before typing
}

/** Diagnostics, the status item, a hover and a C++ preview: what any install must give. */
async function firstLook(page, check) {
  await check('diagnostic for the injected shape error appears in the Problems panel', async () => {
    await quickOpen(page, 'broken_add.py');
    await page.locator('.squiggly-error').first().waitFor({ timeout: SERVER_TIMEOUT });
    await page.keyboard.press('Control+Shift+M');
    const panel = page.locator('.markers-panel');
    await panel.waitFor({ state: 'visible' });
    const row = panel.locator('.monaco-list-row', { hasText: 'requires compatible shapes' }).first();
    await row.waitFor({ timeout: 30_000 });
    const text = normalise(await row.innerText());
    for (const expected of ['[128, 64] and [64, 64]', 'E307']) {
      if (!text.includes(expected)) {
        throw new Error(`Problems row lacks ${expected}: ${text}`);
      }
    }
    await screenshot(page, 'problems.png');
  });

  await check('the status bar shows the server next to a PyPTO file', async () => {
    await page.locator('.statusbar-item', { hasText: 'PyPTO' }).first().waitFor({ timeout: 30_000 });
  });

  await check('hovering a variable shows its deduced type', async () => {
    await page.keyboard.press('Control+Shift+M'); // close Problems again
    const point = await wordPosition(page, 'tile_x: pl.Tile[[128, 64]', 'tile_x');
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'tile_x' });
    for (let attempt = 0; attempt < 5 && !(await hover.first().isVisible()); attempt++) {
      await page.mouse.move(point.x, point.y - 40);
      await page.mouse.move(point.x, point.y, { steps: 4 });
      await hover.first().waitFor({ timeout: 5_000 }).catch(() => undefined);
    }
    const text = normalise(await hover.first().innerText());
    if (!text.includes('pl.Tile[[128, 64], pl.FP32]')) {
      throw new Error(`hover does not show the deduced type: ${text}`);
    }
    await screenshot(page, 'hover.png');
    await page.keyboard.press('Escape');
  });

  await check('"PyPTO: Show Generated C++" opens the C++ beside the kernel', async () => {
    await quickOpen(page, 'simple_add.py');
    await runCommand(page, 'PyPTO: Show Generated C++');
    await page.locator('.tab[aria-label*="simple_add.cpp"]').first().waitFor({ timeout: SERVER_TIMEOUT });
    await waitForEditorText(page, (t) => t.includes('runSimpleAdd'), 'the C++ in the preview');
    await screenshot(page, 'preview.png');
    await waitForScrolledText(page, (t) => t.includes('TADD(tile_z, tile_x, tile_y);'), 'TADD in the preview');
    const groups = await page.locator('.editor-group-container').count();
    if (groups < 2) {
      throw new Error(`the preview is not beside the kernel (${groups} editor group)`);
    }
    const activeTab = normalise((await page.locator('.editor-group-container.active .tab.active').first().getAttribute('aria-label')) ?? '');
    if (!activeTab.includes('simple_add.py')) {
      throw new Error(`the kernel lost the focus to the preview (active tab: ${activeTab})`);
    }
  });

}

async function scenario(page, workspace, port, userDataDir, check) {
  await firstLook(page, check);

  await check('the preview follows an edit of the kernel', async () => {
    await page.locator('.editor-group-container').first().locator('.view-lines').click();
    await replaceInEditor(page, 'pl.add(tile_x', 'pl.sub(tile_x');
    await waitForEditorText(page, (t) => t.includes('TSUB(tile_z, tile_x, tile_y);') && !t.includes('TADD('), 'TSUB in the preview', 30_000);
    await scrollPreviewToEnd(page);
  });

  await check('the preview shows the compile errors instead of stale code', async () => {
    await replaceInEditor(page, 'pl.sub(tile_x', 'pl.sub(x');
    await waitForEditorText(page, (t) => t.includes('No C++ for simple_add.py: it does not compile'), 'the errors in the preview', 30_000);
    const texts = await editorTexts(page);
    if (texts.some((t) => t.includes('TSUB('))) {
      throw new Error('stale C++ is still shown');
    }
  });

  await check('the preview follows the active editor to another kernel', async () => {
    await quickOpen(page, 'broken_add.py');
    await page.locator('.tab[aria-label*="broken_add.cpp"]').first().waitFor({ timeout: 30_000 });
    const text = await waitForEditorText(page, (t) => t.includes('No C++ for broken_add.py'), 'the preview of broken_add.py', 30_000);
    if (!text.includes('[E307]')) {
      throw new Error(`the followed preview does not list E307:\n${text}`);
    }
    if ((await page.locator('.tab[aria-label*="simple_add.cpp"]').count()) !== 0) {
      throw new Error('the old preview tab was not closed');
    }
  });

  await check('nothing of the extension shows for a plain Python file', async () => {
    await quickOpen(page, 'plain.py');
    await page.locator('.editor-group-container.active .tab.active[aria-label*="plain.py"]').first().waitFor({ timeout: 10_000 });
    await page.locator('.statusbar-item', { hasText: 'PyPTO' }).first().waitFor({ state: 'hidden', timeout: 10_000 });
    // The status item hides as the old editor goes, the commands once the extension hears that
    // plain.py is active: on a busy machine the palette can open in between, so it is asked
    // again for a few seconds before the commands count as shown.
    const deadline = Date.now() + 5_000;
    for (;;) {
      await page.keyboard.press('F1');
      await page.locator('.quick-input-widget input').fill('>PyPTO: Show Generated');
      await page.waitForTimeout(500);
      const rows = await page.locator('.quick-input-list .monaco-list-row', { hasText: 'PyPTO: Show Generated' }).count();
      await page.keyboard.press('Escape');
      if (rows === 0) {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(`${rows} preview commands are offered for plain.py`);
      }
      log(`the palette still offers ${rows} preview commands for plain.py; asking again`);
    }
  });

  await check('"PyPTO: Show IR After Pass…" offers the pipeline and shows the IR after the chosen pass', async () => {
    await quickOpen(page, 'simple_add.py');
    await replaceInEditor(page, 'pl.sub(x', 'pl.sub(tile_x');
    await runCommand(page, 'PyPTO: Show IR After Pass…');
    const list = page.locator('.quick-input-list');
    await list.locator('.monaco-list-row', { hasText: 'ConvertToSSA' }).first().waitFor({ timeout: 30_000 });
    // The list is virtual (only the rows in view exist) and the pipeline grows: check its head.
    const labels = normalise(await list.innerText());
    for (const expected of [/Source IR\s*before any pass/, /ConvertToSSA\s*1\/\d+/, /default pipeline/]) {
      if (!expected.test(labels)) {
        throw new Error(`the pass picker lacks ${expected}:\n${labels}`);
      }
    }
    await page.locator('.quick-input-widget input').fill('InsertSync');
    await list.locator('.monaco-list-row.focused', { hasText: 'InsertSync' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tab[aria-label*="simple_add.InsertSync.py"]').first().waitFor({ timeout: 30_000 });
    await waitForEditorText(page, (t) => t.includes('pl.system.sync_src('), 'sync_src in the IR after InsertSync', 30_000);
    await screenshot(page, 'pass-preview.png');
  });

  await check('ptoc.formatOnSave formats the kernel through the server when saving', async () => {
    await page.locator('.editor-group-container').first().locator('.view-lines').click();
    const kernel = join(workspace, 'simple_add.py');
    const formatted = 'tile_z: pl.Tile[[128, 64], pl.FP32] = pl.sub(tile_x, tile_y)\n';
    if (readFileSync(kernel, 'utf8').includes(formatted)) {
      throw new Error('the kernel on disk holds the formatted call before the save: this check could not fail');
    }
    await replaceInEditor(page, 'pl.sub(tile_x, tile_y)', 'pl.sub( tile_x,tile_y )');
    await page.keyboard.press('Control+S');
    await waitForEditorText(
      page,
      (t) => t.includes('pl.sub(tile_x, tile_y)') && !t.includes('pl.sub( tile_x'),
      'the formatted call in the editor',
      15_000,
    );
    // The editor shows the formatted text while the save is still writing the file, which is
    // truncated first: a read then finds it empty (seen under load). Wait for the write to land.
    await waitForFile(kernel, (text) => text.includes(formatted), 'the formatted kernel saved to disk');
  });

  await check('"PyPTO: Restart Language Server" starts a new server that analyses again', async () => {
    const runsBefore = extensionLog(userDataDir).split('ptols is running').length - 1;
    await runCommand(page, 'PyPTO: Restart Language Server');
    const deadline = Date.now() + SERVER_TIMEOUT;
    while (extensionLog(userDataDir).split('ptols is running').length - 1 <= runsBefore) {
      if (Date.now() > deadline) {
        throw new Error('no new server start in the log');
      }
      await page.waitForTimeout(250);
    }
    await statusItem(page, 'ready').first().waitFor({ timeout: SERVER_TIMEOUT });
    await quickOpen(page, 'broken_add.py');
    await page.locator('.squiggly-error').first().waitFor({ timeout: SERVER_TIMEOUT });
  });

  await check('a ptoc.python without ptoc turns the status red with the fix, and restores', async () => {
    const machineSettings = join(userDataDir, 'Machine', 'settings.json');
    const original = readFileSync(machineSettings, 'utf8');
    // The system Python normally lacks ptoc (the case the message is for); else a missing path.
    const systemPython = '/usr/bin/python3';
    const lacksPtoc = spawnSync(systemPython, ['-c', 'import ptols']).status === 1;
    const badPython = lacksPtoc ? systemPython : '/nonexistent/python3';
    const expected = lacksPtoc
      ? `ptoc is not installed in ${systemPython}: run \`${systemPython} -m pip install ptoc\``
      : `The Python interpreter ${badPython} was not found`;
    writeFileSync(machineSettings, JSON.stringify({ ...JSON.parse(original), 'ptoc.python': badPython }, null, 2));
    try {
      const toast = page.locator('.notification-toast', { hasText: expected }).first();
      await toast.waitFor({ timeout: 30_000 });
      await statusItem(page, 'failed').first().waitFor({ timeout: 10_000 });
      await page.waitForTimeout(1_000); // room for any stray error from the replaced client
      const others = await page.locator('.notification-toast', { hasText: 'PyPTO' }).allInnerTexts();
      const stray = others.filter((text) => !normalise(text).includes(expected));
      if (stray.length > 0) {
        throw new Error(`unexpected notifications:\n${stray.join('\n')}`);
      }
      await screenshot(page, 'failure-message.png');
    } finally {
      writeFileSync(machineSettings, original);
    }
    await statusItem(page, 'ready').first().waitFor({ timeout: SERVER_TIMEOUT });
  });

  await check('ptoc.trace.server logs the LSP traffic to the PyPTO Trace channel', async () => {
    const traces = findFiles(join(userDataDir, 'logs'), 'PyPTO Trace').map((file) => readFileSync(file, 'utf8')).join('\n');
    for (const expected of ["Sending request 'initialize", "Sending request 'ptols/preview", "Received notification 'ptols/previewChanged"]) {
      if (!traces.includes(expected)) {
        throw new Error(`the trace lacks ${expected} (${traces.length} characters traced)`);
      }
    }
  });
}

// --- issue #16: CodeLens, source ↔ generated code, memory map, Run ---------------------------

async function kernelViews(page, check) {
  // A clean window (the pictures go into the README): no toasts, no editors, no panel.
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommand(page, 'View: Close All Editors');
  const dontSave = page.locator('.monaco-dialog-box .monaco-button', { hasText: "Don't Save" });
  if (await dontSave.first().isVisible().catch(() => false)) {
    await dontSave.first().click();
  }
  if (await page.locator('.part.panel').first().isVisible().catch(() => false)) {
    await runCommand(page, 'View: Hide Panel');
  }

  await check('a CodeLens above the InCore function offers C++, MLIR, Memory and Run', async () => {
    await quickOpen(page, 'mapped_add.py');
    for (const title of ['C++', 'MLIR', 'Memory', 'Run']) {
      await lens(page, title).waitFor({ timeout: SERVER_TIMEOUT });
    }
  });

  await check('inlay hints show where synchronisation was inserted', async () => {
    const text = await waitForEditorText(page, (t) => t.includes('⇄ MTE2→V'), 'the sync inlay hint', SERVER_TIMEOUT);
    const line = text.split('\n').find((l) => l.includes('⇄ MTE2→V')) ?? '';
    if (!line.includes('pl.add(')) {
      throw new Error(`the MTE2→V hint is not on the add: ${line}`);
    }
  });

  await check('the C++ lens opens the function\'s C++; the cursor on a statement highlights its generated lines', async () => {
    await lens(page, 'C++').click();
    await page.locator('.tab[aria-label*="mapped_add.simple_add.cpp"]').first().waitFor({ timeout: SERVER_TIMEOUT });
    await waitForEditorText(page, (t) => t.includes('runSimpleAdd'), 'the C++ in the preview');
    await clickWord(page, 'tile_z: pl.Tile[[128, 64], pl.FP32] = pl.add(', 'pl.add');
    const lines = await waitForHighlight(group(page, 1), (l) => l.some((t) => t.includes('TADD(tile_z, tile_x, tile_y);')), 'TADD highlighted');
    if (lines.some((t) => t.includes('TLOAD(') || t.includes('TSTORE('))) {
      throw new Error(`other statements are highlighted too:\n${lines.join('\n')}`);
    }
    await screenshot(page, 'source-map.png');
    await clickWord(page, 'pl.store(', 'pl.store');
    await waitForHighlight(group(page, 1), (l) => l.some((t) => t.includes('TSTORE(outputGlobal, tile_z);')) && !l.some((t) => t.includes('TADD(')), 'TSTORE highlighted');
  });

  await check('a click in the preview highlights the source line it came from', async () => {
    await clickWord(page, 'TLOAD(tile_y, yGlobal);', 'TLOAD');
    const lines = await waitForHighlight(group(page, 0), (l) => l.length > 0, 'a highlighted source line');
    if (lines.length !== 1 || !lines[0].includes('tile_y: pl.Tile[[128, 64], pl.FP32] = pl.load(y, [0, 0], [128, 64])')) {
      throw new Error(`the source highlight is not the load of y:\n${lines.join('\n')}`);
    }
  });

  await check('"Go to Source" in the preview\'s context menu moves the cursor to the source', async () => {
    // On a busy machine the menu now and then drops the click on its item and stays open (seen
    // in a failure screenshot): the item, still focused under the pointer, then takes Enter, as
    // a user's keyboard would. Each attempt logs what it saw, so a lost click is told apart from
    // a command that did nothing (which fails every attempt).
    const source = page.locator('.editor-group-container.active .tab.active[aria-label*="mapped_add.py"]').first();
    const menu = page.locator('.monaco-menu').first();
    for (let attempt = 1; ; attempt += 1) {
      await clickWord(page, 'TADD(tile_z, tile_x, tile_y);', 'TADD', { button: 'right' });
      const item = page.locator('.monaco-menu .action-item', { hasText: 'Go to Source' }).first();
      await item.waitFor({ timeout: 10_000 });
      await item.hover();
      await item.click();
      if (await menu.isVisible().catch(() => false)) {
        await page.waitForTimeout(500);
        if (await menu.isVisible().catch(() => false)) {
          log('"Go to Source": the click was lost and the menu stays open; Enter on its focused item');
          await item.hover();
          await page.keyboard.press('Enter');
        }
      }
      try {
        await source.waitFor({ timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
        const toasts = await page.locator('.notification-toast').allInnerTexts();
        const open = await menu.isVisible().catch(() => false);
        log(`retry: "Go to Source" did not reach the source (menu open: ${open}; notifications: ${JSON.stringify(toasts)})`);
        await page.keyboard.press('Escape');
      }
    }
    await waitForCursorLine(page, 21);
  });

  await check('the Memory lens draws the Vec lane with a box per tile at its address', async () => {
    await lens(page, 'Memory').click();
    await page.locator('.tab[aria-label*="Memory: simple_add"]').first().waitFor({ timeout: SERVER_TIMEOUT });
    const frame = memoryMapFrame(page);
    const boxes = frame.locator('g.buffer[data-space="Vec"]');
    await boxes.first().waitFor({ timeout: SERVER_TIMEOUT });
    const names = await boxes.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-name')));
    if (names.join(',') !== 'tile_x,tile_y,tile_z') {
      throw new Error(`Vec boxes: ${names.join(', ')}`);
    }
    const tip = normalise((await frame.locator('g.buffer[data-name="tile_y"]').getAttribute('data-tip')) ?? '');
    if (!tip.startsWith('tile_y: Vec [0x8000, 0x10000) · 32768 B\nFP32 [128, 64]')) {
      throw new Error(`tile_y's details: ${tip}`);
    }
    const lane = normalise((await frame.locator('g.lane[data-space="Vec"]').textContent()) ?? '');
    if (!lane.includes('96 KB of 192 KB (50%)')) {
      throw new Error(`the Vec lane says: ${lane}`);
    }
    await frame.locator('g.buffer[data-name="tile_y"] rect').hover();
    await frame.locator('#tip', { hasText: 'tile_y: Vec [0x8000, 0x10000)' }).waitFor({ state: 'visible', timeout: 5_000 });
    await screenshot(page, 'memory-map.png');
  });

  await check('a click on a box reveals the buffer in the kernel', async () => {
    await memoryMapFrame(page).locator('g.buffer[data-name="tile_y"] rect').click();
    await page.locator('.editor-group-container.active .tab.active[aria-label*="mapped_add.py"]').first().waitFor({ timeout: 10_000 });
    await waitForCursorLine(page, 20);
  });

  await check('the Run lens runs the function on the simulator and reports success', async () => {
    await lens(page, 'Run').click();
    await page.locator('.notification-toast', { hasText: 'Running simple_add on the simulator' }).first().waitFor({ timeout: 10_000 });
    // The first build against pto-isa compiles its headers (a minute or more on a busy machine).
    const message = page.locator('.notification-toast .notification-list-item-message', { hasText: /agree|Could not run|failed/i }).first();
    await message.waitFor({ timeout: 300_000 });
    const text = normalise(await message.innerText());
    if (!text.includes('simple_add: simulator and reference interpreter agree on 3 results')) {
      throw new Error(`the run did not succeed: ${text}`);
    }
    await screenshot(page, 'run.png');
  });

  // (A disagreement's E406 on the function is the LSP round trip's, tests/server/test_lsp_run.py:
  // no real kernel disagrees on purpose.)
  await check('a run the simulator cannot compare says why, with no E406', async () => {
    await runCommand(page, 'Notifications: Clear All Notifications');
    await quickOpen(page, 'bf16_add.py');
    await lens(page, 'Run').click();
    const message = page.locator('.notification-toast .notification-list-item-message', {
      hasText: /agree|Could not run|failed|cannot be compared/i,
    }).first();
    await message.waitFor({ timeout: 300_000 });
    const text = normalise(await message.innerText());
    if (!text.includes("'simple_add' cannot be compared on the simulator: it computes on BF16")) {
      throw new Error(`the run did not say why it cannot compare: ${text}`);
    }
    await screenshot(page, 'run-not-comparable.png');
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel').first().waitFor({ timeout: 30_000 });
    const rows = page.locator('.markers-panel .monaco-list-row', { hasText: 'E406' });
    if ((await rows.count()) !== 0) {
      throw new Error('a run that could not compare left an E406 problem');
    }
    await page.keyboard.press('Control+Shift+M');
  });
}

// --- main -----------------------------------------------------------------------------------

/** The server's line in the extension's log ("ptoc X bundled with the extension, on Python ..."). */
async function waitForLogLine(userDataDir, pattern, what) {
  const deadline = Date.now() + SERVER_TIMEOUT;
  for (;;) {
    const line = extensionLog(userDataDir).split('\n').find((l) => pattern.test(l));
    if (line !== undefined) {
      return line;
    }
    if (Date.now() > deadline) {
      throw new Error(`the PyPTO log has no line for ${what}:\n${extensionLog(userDataDir)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A Python 3.11+ with nothing installed: a venv of the repository's interpreter, without pip. */
function barePython(root) {
  const dir = join(root, 'bare-python');
  sh(python, ['-m', 'venv', '--without-pip', dir]);
  const bare = join(dir, 'bin', 'python');
  if (spawnSync(bare, ['-c', 'import ptoc']).status === 0 || spawnSync(bare, ['-c', 'import pygls']).status === 0) {
    throw new Error(`${bare} can import ptoc or pygls: the bundled run would prove nothing`);
  }
  return bare;
}

/**
 * One code-server session with a fresh profile and workspace, the .vsix installed offline and
 * `machine` as the machine settings; `body(page, context)` runs the checks.
 */
async function session(label, { node, entry, vsix }, machine, body) {
  log(`--- session: ${label}`);
  const root = mkdtempSync(join(tmpdir(), 'ptoc-e2e-'));
  const workspace = prepareWorkspace(root);
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  const settings = typeof machine === 'function' ? machine(root) : machine;
  writeUserSettings(userDataDir, settings);
  const port = await freePort();
  const config = join(root, 'config.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share') };
  const common = ['--config', config, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];

  sh(node.node, [entry, ...common, '--install-extension', vsix], { env });

  log(`starting code-server ${CODE_SERVER_VERSION} on 127.0.0.1:${port}`);
  const serverLog = join(results, `code-server-${label}.log`);
  const out = openSync(serverLog, 'w');
  const codeServer = spawn(
    node.node,
    [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry',
      '--disable-update-check', '--disable-workspace-trust', workspace],
    { env, detached: true, stdio: ['ignore', out, out] },
  );
  const stopServer = () => {
    try {
      process.kill(-codeServer.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('exit', stopServer);

  let browser;
  let passed = 0;
  let failed = 0;
  try {
    await waitForHealth(`http://127.0.0.1:${port}/healthz`, 60_000);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, env }); // HOME stays in root
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    let broken = false;
    const check = async (name, checkBody) => {
      if (broken) {
        failed++;
        log(`SKIP-FAIL [${label}] ${name} (an earlier step failed)`);
        return;
      }
      try {
        await checkBody();
        passed++;
        log(`PASS [${label}] ${name}`);
      } catch (error) {
        failed++;
        broken = true;
        log(`FAIL [${label}] ${name}: ${error instanceof Error ? error.message : String(error)}`);
        await page.screenshot({ path: join(results, `failure-${label}.png`) }).catch(() => undefined);
        log(`at the failure: ${JSON.stringify(await windowState(page).catch((e) => String(e)))}`);
      }
    };
    await openWorkbench(page, workspace, port);
    await body(page, { workspace, port, userDataDir, check, settings });
  } finally {
    await browser?.close().catch(() => undefined);
    stopServer();
    if (failed === 0) {
      rmSync(root, { recursive: true, force: true });
    } else {
      log(`kept ${root} and ${results} for inspection`);
    }
  }
  return { passed, failed };
}

async function main() {
  const probe = spawnSync(python, ['-m', 'ptols', '--help'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error(`${python} -m ptols --help failed; set PTOC_PYTHON to an interpreter with ptoc installed.\n${probe.stderr ?? ''}`);
  }
  ensureDebianPackages(['chromium']);
  const node = ensureNode24(cache);
  const entry = ensureCodeServer(cache, node);

  sh('npm', ['run', 'package'], { cwd: extensionDir });
  const tools = { node, entry, vsix: join(extensionDir, 'ptoc.vsix') };

  rmSync(results, { recursive: true, force: true });
  mkdirSync(results, { recursive: true });
  const totals = { passed: 0, failed: 0 };
  const add = ({ passed, failed }) => {
    totals.passed += passed;
    totals.failed += failed;
  };

  // 1. The extension alone: a Python with nothing installed runs the ptoc inside the .vsix.
  if (only === undefined || only === 'bundled') {
    add(await session('bundled', tools, (root) => ({ 'ptoc.python': barePython(root) }), async (page, { userDataDir, check, settings }) => {
      await firstLook(page, check);
      await check('the log names the bundled ptoc and the bare Python that runs it', async () => {
        const expected = `ptoc ${packageVersion()} bundled with the extension, on Python `;
        const line = await waitForLogLine(userDataDir, /ptoc \S+ bundled with the extension/, 'the bundled ptoc');
        if (!line.includes(expected) || !line.includes(`(${settings['ptoc.python']})`)) {
          throw new Error(`the log says: ${line}`);
        }
      });
    }));
  }

  // 2. ptoc.importStrategy fromEnvironment: the interpreter's own ptoc (this checkout's), and
  // everything else the extension does.
  const fromEnvironment = { 'ptoc.python': python, 'ptoc.importStrategy': 'fromEnvironment' };
  if (only !== 'bundled') {
    add(await session('environment', tools, fromEnvironment, async (page, { workspace, port, userDataDir, check }) => {
      await check('the log names the environment\'s ptoc', async () => {
        await quickOpen(page, 'simple_add.py');
        const line = await waitForLogLine(userDataDir, /ptoc \S+ from the environment/, "the environment's ptoc");
        const location = join(repo, 'compiler', 'ptoc', '__init__.py');
        if (!line.includes(`from the environment (${location})`)) {
          throw new Error(`the log says: ${line}`);
        }
      });
      if (only === undefined || only === 'basics') {
        await scenario(page, workspace, port, userDataDir, check);
      }
      if (only === undefined || only === 'kernel-views') {
        await kernelViews(page, check);
      }
      for (const [name, views] of Object.entries(MORE_VIEWS)) {
        if (only === undefined || only === name) {
          await views(page, check, { workspace, port, userDataDir });
        }
      }
    }));
  }
  console.log(`e2e: ${totals.passed} passed, ${totals.failed} failed`);
  process.exitCode = totals.failed === 0 ? 0 : 1;
}

function packageVersion() {
  return JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8')).version;
}

main().catch((error) => {
  console.error(`[e2e] ${error instanceof Error ? error.stack : String(error)}`);
  console.log('e2e: 0 passed, 1 failed');
  process.exitCode = 1;
});
