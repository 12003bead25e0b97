// The compiler explorer in the editor (issue #31): the "PyPTO Passes" view lists the passes
// that changed the IR of examples/simple_add.py with their counts, the diff of one pass shows
// the IR before and after it side by side, a click on a line of the diff highlights the kernel
// line it came from, and Alt+] steps to the next pass. explored_add.py is written here.
import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SERVER_TIMEOUT, clickWord, extensionDir, group, normalise, runCommand, screenshot, waitForHighlight } from './workbench.mjs';

const KERNEL = 'explored_add.py';
const ADD_LINE = 'tile_z: pl.Tile[[128, 64], pl.FP32] = pl.add(tile_x, tile_y)';

/** The passes the view lists: name and description. */
async function listedPasses(page) {
  const rows = page.locator('.pane-body .monaco-list-row[aria-label]', { has: page.locator('.codicon-diff') });
  return rows.evaluateAll((nodes) =>
    nodes.map((n) => `${n.querySelector('.label-name')?.textContent ?? ''} ${n.querySelector('.label-description')?.textContent ?? ''}`.trim()),
  );
}

async function diffSides(page) {
  const side = async (which) => normalise(await page.locator(`.monaco-diff-editor .editor.${which} .view-lines`).first().innerText());
  return { before: await side('original'), after: await side('modified') };
}

export default async function explorer(page, check, { workspace }) {
  copyFileSync(resolve(extensionDir, '..', 'examples', 'simple_add.py'), join(workspace, KERNEL));

  await check('the pass explorer lists the passes that changed the IR, with their counts', async () => {
    // written after the workbench opened: the explorer lists it before quick open's index does
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: KERNEL }).first().click({ timeout: 20_000 });
    await page.locator(`.editor-group-container.active .tab.active[aria-label*="${KERNEL}"]`).first().waitFor();
    await runCommand(page, 'PyPTO: Show Pass Explorer');
    const deadline = Date.now() + SERVER_TIMEOUT;
    let listed = [];
    while (Date.now() < deadline) {
      listed = (await listedPasses(page)).map(normalise);
      if (listed.length > 0) {
        break;
      }
      await page.waitForTimeout(250);
    }
    const want = ['InitMemRef +17 \u22129', 'InsertSync +12 \u22120', 'AllocateMemoryAddr +3 \u22123'];
    if (listed.join(' | ') !== want.join(' | ')) {
      throw new Error(`the view lists: ${listed.join(' | ')}`);
    }
    await page.locator('.pane-body .monaco-list-row', { hasText: '8 unchanged passes hidden' }).first().waitFor({ timeout: 5_000 });
  });

  await check("the diff of one pass: the IR before and after InsertSync, side by side", async () => {
    await page.locator('.pane-body .monaco-list-row', { hasText: 'InsertSync' }).first().click();
    await page.locator('.tab[aria-label*="InsertSync (+12 \u22120): IR before"]').first().waitFor({ timeout: 20_000 });
    const deadline = Date.now() + 20_000;
    let sides = { before: '', after: '' };
    while (Date.now() < deadline) {
      sides = await diffSides(page);
      if (sides.after.includes('pl.system.sync_src(')) {
        break;
      }
      await page.waitForTimeout(250);
    }
    if (!sides.after.includes('pl.system.sync_src(') || sides.before.includes('pl.system.sync_src(')) {
      throw new Error(`before:\n${sides.before}\n-----\nafter:\n${sides.after}`);
    }
    if (!sides.before.includes('pl.MemRef(pl.MemorySpace.Vec, None, 32768, 3)')) {
      throw new Error(`the left side is not the IR before InsertSync:\n${sides.before}`);
    }
    await screenshot(page, 'pass-explorer.png');
  });

  await check('a click on a line of the diff highlights the kernel line it came from', async () => {
    await clickWord(page, 'set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V', 'MTE2');
    await waitForHighlight(group(page, 0), (lines) => lines.some((l) => l.includes(ADD_LINE)), 'the add highlighted in the kernel');
  });

  await check('Alt+] steps to the next pass that changed the IR', async () => {
    await page.keyboard.press('Alt+BracketRight');
    await page.locator('.tab.active[aria-label*="AllocateMemoryAddr (+3 \u22123)"]').first().waitFor({ timeout: 20_000 });
    await page.keyboard.press('Alt+BracketLeft');
    await page.locator('.tab.active[aria-label*="InsertSync (+12 \u22120)"]').first().waitFor({ timeout: 20_000 });
  });
}
