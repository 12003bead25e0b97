/**
 * The memory map webview: one panel per kernel (and function), filled from `ptols/memoryMap`
 * and redrawn on `ptols/previewChanged`, as previews are. A click on a buffer reveals its
 * first use in the kernel.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { decodeRange, layoutForWidth, renderMemoryMap, renderMessage, type PageResources } from './logic/memoryView';
import { Methods, parseMemoryMap, type MemoryMapParams, type MemoryMapResult } from './logic/protocol';
import type { ServerController } from './server';
import { errorText, fileName, sameUri } from './uriText';

export const MEMORY_MAP_VIEW = 'ptoc.memoryMap';

class MemoryMapPanel {
  readonly panel: vscode.WebviewPanel;
  private readonly resources: PageResources;
  private html = '';
  /** The last answer, redrawn without asking again when the panel's width changes. */
  private result: MemoryMapResult | undefined;
  private width: number | undefined;
  /** Answers can overtake each other: only the newest request may draw. */
  private generation = 0;

  constructor(
    readonly source: string,
    readonly fn: string | undefined,
    extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const title = `Memory: ${fn ?? fileName(source)}`;
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.panel = vscode.window.createWebviewPanel(
      MEMORY_MAP_VIEW,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: false },
    );
    const webview = this.panel.webview;
    this.resources = {
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString('base64url'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'memoryMap.js')).toString(),
    };
    this.draw(renderMessage(`Asking the language server for the memory map of ${fileName(source)}…`, this.resources));
    webview.onDidReceiveMessage((message: unknown) => void this.onMessage(message));
  }

  private draw(html: string): void {
    if (html !== this.html) {
      this.html = html;
      this.panel.webview.html = html;
    }
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const params: MemoryMapParams = { textDocument: { uri: this.source }, ...(this.fn === undefined ? {} : { function: this.fn }) };
    let result: MemoryMapResult | undefined;
    let html: string;
    try {
      result = parseMemoryMap(await this.server.request(Methods.memoryMap, params));
      html = result === undefined
        ? renderMessage('The language server sent a memory map this extension does not understand.', this.resources)
        : this.render(result);
    } catch (error) {
      this.log.warn(`Memory map of ${this.source} failed: ${errorText(error)}`);
      html = renderMessage(`No memory map for ${fileName(this.source)}: ${errorText(error)}.`, this.resources);
    }
    if (generation === this.generation) {
      this.result = result;
      // A map is drawn for the panel's width, which the page reports once it has loaded: drawn
      // before that, it would be drawn again a moment later, the new page replacing the first.
      if (result === undefined || this.width !== undefined) {
        this.draw(html);
      }
    }
  }

  private render(result: MemoryMapResult): string {
    return renderMemoryMap(result, fileName(this.source), this.resources, layoutForWidth(this.width));
  }

  private async onMessage(message: unknown): Promise<void> {
    if (typeof message !== 'object' || message === null) {
      return;
    }
    const { command, range: encoded, width } = message as { command?: unknown; range?: unknown; width?: unknown };
    if (command === 'width' && typeof width === 'number') {
      this.width = width;
      if (this.result !== undefined) {
        this.draw(this.render(this.result));
      }
      return;
    }
    if (command !== 'reveal') {
      return;
    }
    const range = decodeRange(encoded);
    if (range === undefined) {
      return;
    }
    const target = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
    const visible = vscode.window.visibleTextEditors.find((e) => sameUri(e.document.uri.toString(), this.source));
    const editor = await vscode.window.showTextDocument(vscode.Uri.parse(this.source), {
      viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One,
      selection: target,
    });
    editor.revealRange(target, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}

export class MemoryMapManager implements vscode.Disposable {
  private readonly panels = new Set<MemoryMapPanel>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      server.onPreviewChanged((changed) => {
        for (const panel of this.panels) {
          if (sameUri(panel.source, changed.uri)) {
            void panel.refresh();
          }
        }
      }),
      server.onRunning(() => {
        for (const panel of this.panels) {
          void panel.refresh();
        }
      }),
    );
  }

  /** Shows (or brings forward) the map of `source`, of one function or of all. */
  async show(source: string, fn: string | undefined): Promise<void> {
    for (const panel of this.panels) {
      if (sameUri(panel.source, source) && panel.fn === fn) {
        panel.panel.reveal(undefined, true);
        await panel.refresh();
        return;
      }
    }
    const panel = new MemoryMapPanel(source, fn, this.extensionUri, this.server, this.log);
    this.panels.add(panel);
    panel.panel.onDidDispose(() => this.panels.delete(panel));
    await panel.refresh();
  }

  dispose(): void {
    for (const panel of this.panels) {
      panel.panel.dispose();
    }
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
