/**
 * Webview panels about a kernel (the memory map, the timeline): one panel per kernel and
 * function, filled from one request of the server and redrawn on `ptols/previewChanged` and
 * after a server (re)start, as previews are. Each page is drawn for the panel's width, which
 * its script (media/memoryMap.js) reports, and a click on an element posts the source range
 * to reveal. A kind may keep a state of its own in each panel (the memory map's scale, spaces
 * and pinned buffer), changed by the messages its page posts and passed to `render`.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { decodeRange, renderMessage, type PageResources } from './logic/memoryView';
import type { ServerController } from './server';
import { errorText, fileName, sameUri } from './uriText';

/** What a kind of panel asks the server for, and how it draws the answer. */
export interface PanelKind<R, S = undefined> {
  viewType: string;
  /** The tab's title before the function's name: `Memory`, `Timeline`. */
  title: string;
  /** In messages: `memory map`, `timeline`. */
  what: string;
  method: string;
  parse(value: unknown): R | undefined;
  render(result: R, sourceName: string, resources: PageResources, width: number | undefined, state: S): string;
  /** The state of a new panel. */
  initialState?: () => S;
  /** More fields of the request for a source (the chosen @pl.jit specialisation). */
  params?: (source: string) => Record<string, unknown>;
  /** The state after a message of the page (undefined: not one of this kind's). */
  onMessage?: (state: S, message: Record<string, unknown>, source: string) => S | undefined;
}

class KernelPanel<R, S> {
  readonly panel: vscode.WebviewPanel;
  private readonly resources: PageResources;
  private html = '';
  /** The last answer, redrawn without asking again when the panel's width changes. */
  private result: R | undefined;
  private width: number | undefined;
  /** Answers can overtake each other: only the newest request may draw. */
  private generation = 0;
  private state: S;

  constructor(
    private readonly kind: PanelKind<R, S>,
    readonly source: string,
    readonly fn: string | undefined,
    extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.state = kind.initialState?.() as S;
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.panel = vscode.window.createWebviewPanel(
      kind.viewType,
      `${kind.title}: ${fn ?? fileName(source)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: false },
    );
    const webview = this.panel.webview;
    this.resources = {
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString('base64url'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'memoryMap.js')).toString(),
    };
    this.draw(renderMessage(`Asking the language server for the ${kind.what} of ${fileName(source)}…`, this.resources));
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
    const params = {
      textDocument: { uri: this.source },
      ...(this.fn === undefined ? {} : { function: this.fn }),
      ...(this.kind.params?.(this.source) ?? {}),
    };
    let result: R | undefined;
    let html: string;
    try {
      result = this.kind.parse(await this.server.request(this.kind.method, params));
      html = result === undefined
        ? renderMessage(`The language server sent a ${this.kind.what} this extension does not understand.`, this.resources)
        : this.render(result);
    } catch (error) {
      this.log.warn(`The ${this.kind.what} of ${this.source} failed: ${errorText(error)}`);
      html = renderMessage(`No ${this.kind.what} for ${fileName(this.source)}: ${errorText(error)}.`, this.resources);
    }
    if (generation === this.generation) {
      this.result = result;
      // A page is drawn for the panel's width, which the page reports once it has loaded: drawn
      // before that, it would be drawn again a moment later, the new page replacing the first.
      if (result === undefined || this.width !== undefined) {
        this.draw(html);
      }
    }
  }

  private render(result: R): string {
    return this.kind.render(result, fileName(this.source), this.resources, this.width, this.state);
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
    const next = this.kind.onMessage?.(this.state, message as Record<string, unknown>, this.source);
    if (next !== undefined) {
      this.state = next;
      if (this.result !== undefined) {
        this.draw(this.render(this.result));
      }
    }
    const range = command === 'reveal' ? decodeRange(encoded) : undefined;
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

/** The open panels of one kind. */
export class KernelPanels<R, S = undefined> implements vscode.Disposable {
  private readonly panels = new Set<KernelPanel<R, S>>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly kind: PanelKind<R, S>,
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

  /** Asks again for every panel of `source` (its chosen specialisation changed). */
  refreshSource(source: string): void {
    for (const panel of this.panels) {
      if (sameUri(panel.source, source)) {
        void panel.refresh();
      }
    }
  }

  /** Shows (or brings forward) the panel of `source`, of one function or of all. */
  async show(source: string, fn: string | undefined): Promise<void> {
    for (const panel of this.panels) {
      if (sameUri(panel.source, source) && panel.fn === fn) {
        panel.panel.reveal(undefined, true);
        await panel.refresh();
        return;
      }
    }
    const panel = new KernelPanel(this.kind, source, fn, this.extensionUri, this.server, this.log);
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
