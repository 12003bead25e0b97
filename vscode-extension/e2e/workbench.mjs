// Steps in the browser shared by the e2e scenarios: reading editors, the palette, quick open,
// clicks on words, decorations, screenshots. Each scenario module imports what it needs.
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const extensionDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const results = join(extensionDir, 'e2e', 'results');
export const SERVER_TIMEOUT = 90_000; // first analysis includes the server's start-up
const updateScreenshots = process.argv.includes('--screenshots');

export const log = (message) => console.log(`[e2e] ${message}`);

// --- -------------------------------------------------------------------

export const normalise = (text) => text.replace(/\u00a0/g, ' ');

export async function editorTexts(page) {
  const texts = await page.$$eval('.editor-instance .view-lines', (nodes) => nodes.map((n) => n.innerText));
  return texts.map(normalise);
}

export async function waitForEditorText(page, predicate, what, timeout = SERVER_TIMEOUT) {
  const deadline = Date.now() + timeout;
  let last = [];
  while (Date.now() < deadline) {
    last = await editorTexts(page);
    if (last.some(predicate)) {
      return last.find(predicate);
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`timed out waiting for ${what}; editors show:\n${last.join('\n-----\n')}`);
}

export async function waitForFile(file, predicate, what, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = readFileSync(file, 'utf8');
    if (predicate(last)) {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; the file holds:\n${last}`);
}

/** Screen position of `word` on the first visible editor line containing `lineText`. */
export async function wordPosition(page, lineText, word) {
  const point = await page.evaluate(
    ([wantedLine, wantedWord]) => {
      const clean = (text) => (text ?? '').replace(/\u00a0/g, ' ');
      for (const line of document.querySelectorAll('.editor-instance .view-line')) {
        if (!clean(line.textContent).includes(wantedLine)) {
          continue;
        }
        // The word may span several text nodes (semantic tokens colour `pl`, `.` and `add`
        // apart): find it in the line's text, then the node holding its middle character.
        const at = clean(line.textContent).indexOf(wantedWord);
        if (at < 0) {
          continue;
        }
        const middle = at + Math.floor(wantedWord.length / 2);
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let offset = 0;
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          const length = (node.textContent ?? '').length;
          if (middle < offset + length) {
            const range = document.createRange();
            range.setStart(node, middle - offset);
            range.setEnd(node, middle - offset + 1);
            const box = range.getBoundingClientRect();
            return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
          }
          offset += length;
        }
      }
      return null;
    },
    [lineText, word],
  );
  if (point === null) {
    throw new Error(`no visible line contains ${lineText}`);
  }
  return point;
}

/** Scrolls the preview (the last editor group) to its end without focusing it: Monaco only renders visible lines. */
export async function scrollPreviewToEnd(page) {
  const box = await page.locator('.editor-group-container').last().locator('.view-lines').boundingBox();
  if (box !== null) {
    await page.mouse.move(box.x + box.width / 2, box.y + 100);
    await page.mouse.wheel(0, 5_000);
  }
}

/** Scroll the preview to its end until ``want`` holds: a preview that refreshes (a new
 *  analysis, a pull of diagnostics) may be drawn again from its top after a scroll. */
export async function waitForScrolledText(page, want, what) {
  for (let attempt = 1; ; attempt += 1) {
    await scrollPreviewToEnd(page);
    try {
      await waitForEditorText(page, want, what, 3_000);
      return;
    } catch (error) {
      if (attempt >= 5) {
        throw error;
      }
      log(`${what}: not shown after scrolling (attempt ${attempt}), scrolling again`);
    }
  }
}

export async function quickOpen(page, name) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  // Enter takes the focused row: wait until filtering has made it the wanted one.
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator(`.editor-group-container.active .tab.active[aria-label*="${name}"]`).first().waitFor();
}

export async function runCommand(page, title) {
  // Context keys reach the palette asynchronously after an editor switch: reopen it if the
  // command is not offered yet.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first();
    try {
      await row.waitFor({ timeout: 5_000 });
      break;
    } catch (error) {
      await page.keyboard.press('Escape');
      if (attempt === 3) {
        throw error;
      }
      log(`the palette does not offer "${title}" yet; reopening it`);
    }
  }
  // The palette hides as it takes Enter, before it runs the command (which may open a picker of
  // its own, with another text). Still showing the command long after, it never took the key:
  // then Enter is pressed once more. A command that runs and does nothing is not retried here;
  // the check that follows fails on it.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Enter');
    if (await paletteLetGo(page, `>${title}`, 10_000)) {
      return;
    }
    if (attempt === 2) {
      throw new Error(`the palette still shows "${title}" after Enter`);
    }
    log(`the palette still shows "${title}" 10 s after Enter; pressing Enter again`);
  }
}

/** Whether the palette stops showing `text` (it hid, or shows something else) within `timeout` ms. */
export async function paletteLetGo(page, text, timeout) {
  const input = page.locator('.quick-input-widget input');
  const deadline = Date.now() + timeout;
  for (;;) {
    const shown = (await input.isVisible().catch(() => false)) && (await input.inputValue().catch(() => '')) === text;
    if (!shown) {
      return true;
    }
    if (Date.now() > deadline) {
      return false;
    }
    await page.waitForTimeout(100);
  }
}

/** Replaces every `find` in the focused editor with the editor's own replace widget. */
export async function replaceInEditor(page, find, replacement) {
  await page.keyboard.press('Control+H');
  const widget = page.locator('.find-widget.visible');
  const findInput = widget.locator('.find-part textarea, .find-part input').first();
  const replaceInput = widget.locator('.replace-part textarea, .replace-part input').first();
  await findInput.waitFor({ state: 'visible' });
  await findInput.fill(find);
  await replaceInput.fill(replacement);
  await replaceInput.press('Control+Alt+Enter');
  await replaceInput.press('Escape');
  await widget.waitFor({ state: 'hidden' });
  await waitForEditorText(page, (t) => t.includes(replacement), `"${replacement}" in the kernel`, 10_000);
}

export async function screenshot(page, name) {
  const file = join(results, name);
  await page.screenshot({ path: file });
  if (updateScreenshots) {
    copyFileSync(file, join(extensionDir, 'images', name));
  }
  log(`screenshot ${file}`);
}

export function extensionLog(userDataDir) {
  const logs = join(userDataDir, 'logs');
  return readdirSync(logs)
    .map((session) => join(logs, session, 'exthost1', 'ptoc.ptoc', 'PyPTO.log'))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}

/** Every file under `dir` whose name contains `part`. */
export function findFiles(dir, part) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => name.includes(part))
    .map((name) => join(dir, name));
}

/** What a failure screenshot shows, as text for the log: the toasts, the palette, the active tab. */
export async function windowState(page) {
  const input = page.locator('.quick-input-widget input');
  const paletteOpen = await input.isVisible().catch(() => false);
  return {
    notifications: await page.locator('.notification-toast').allInnerTexts(),
    palette: paletteOpen ? await input.inputValue() : null,
    activeTab: await page.locator('.editor-group-container.active .tab.active').first().getAttribute('aria-label', { timeout: 1_000 }).catch(() => null),
    tabs: await page.locator('.tab').evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('aria-label'))),
  };
}


export const group = (page, index) => page.locator('.editor-group-container').nth(index);

/** Texts of the lines an extension's whole-line decoration marks in one editor group. */
export async function highlightedLines(editorGroup) {
  return editorGroup.evaluate((root) => {
    const clean = (text) => (text ?? '').replace(/\u00a0/g, ' ');
    const tops = new Set();
    for (const overlay of root.querySelectorAll('.view-overlays > div')) {
      if (overlay.querySelector('[class*="ced-"]') !== null) {
        tops.add(overlay.style.top);
      }
    }
    return [...root.querySelectorAll('.view-lines .view-line')]
      .filter((line) => tops.has(line.style.top))
      .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .map((line) => clean(line.textContent));
  });
}

export async function waitForHighlight(editorGroup, predicate, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let last = [];
  while (Date.now() < deadline) {
    last = await highlightedLines(editorGroup);
    if (predicate(last)) {
      return last;
    }
    await editorGroup.page().waitForTimeout(200);
  }
  throw new Error(`timed out waiting for ${what}; highlighted:\n${last.join('\n')}`);
}

export async function clickWord(page, lineText, word, options = {}) {
  const point = await wordPosition(page, lineText, word);
  await page.mouse.click(point.x, point.y, options);
}

export async function cursorLine(page) {
  const text = normalise(await page.locator('[id="status.editor.selection"]').first().innerText());
  const match = /Ln (\d+)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

export async function waitForCursorLine(page, line, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await cursorLine(page);
    if (last === line) {
      return;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`the cursor is on line ${last}, not ${line}`);
}

export const lens = (page, title) =>
  group(page, 0).locator('.codelens-decoration a', { hasText: new RegExp(`^${title.replace(/[+]/g, '\\+')}$`) }).first();

export function memoryMapFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}
