/**
 * The timeline webview ("PyPTO: Show Timeline", and the server's `≈ N cycles` CodeLens): one
 * panel per kernel, filled from `ptols/timeline` and redrawn on `ptols/previewChanged`. A
 * click on an instruction (or an arrow) reveals its source line. The page is the memory map's
 * (media/memoryMap.js is its script).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { decodeRange, renderMessage, type PageResources } from './logic/memoryView';
import { Methods, parseTimeline, type TimelineParams, type TimelineResult } from './logic/protocol';
import { timelineLayoutForWidth } from './logic/timelineLayout';
import { renderTimeline } from './logic/timelineView';
import type { PreviewManager } from './preview';
import type { ServerController } from './server';
import { errorText, fileName, sameUri } from './uriText';

export const TIMELINE_VIEW = 'ptoc.timeline';

class TimelinePanel {
  readonly panel: vscode.WebviewPanel;
  private readonly resources: PageResources;
  private shown = '';
  private result: TimelineResult | undefined;
  /** The page's width once it reported it: a timeline is drawn for it. */
  private width: number | undefined;
  private generation = 0;

  constructor(
    readonly source: string,
    readonly fn: string | undefined,
    extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.panel = vscode.window.createWebviewPanel(
      TIMELINE_VIEW,
      `Timeline: ${fn ?? fileName(source)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: false },
    );
    const webview = this.panel.webview;
    this.resources = {
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString('base64url'),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'memoryMap.js')).toString(),
    };
    this.show(renderMessage(`Asking the language server for the timeline of ${fileName(source)}…`, this.resources));
    webview.onDidReceiveMessage((message: unknown) => void this.receive(message));
  }

  private show(html: string): void {
    if (html !== this.shown) {
      this.shown = html;
      this.panel.webview.html = html;
    }
  }

  private drawn(result: TimelineResult): string {
    return renderTimeline(result, fileName(this.source), this.resources, timelineLayoutForWidth(this.width));
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const params: TimelineParams = { textDocument: { uri: this.source }, ...(this.fn === undefined ? {} : { function: this.fn }) };
    let result: TimelineResult | undefined;
    let failure: string | undefined;
    try {
      result = parseTimeline(await this.server.request(Methods.timeline, params));
      failure = result === undefined ? 'The language server sent a timeline this extension does not understand.' : undefined;
    } catch (error) {
      this.log.warn(`Timeline of ${this.source} failed: ${errorText(error)}`);
      failure = `No timeline for ${fileName(this.source)}: ${errorText(error)}.`;
    }
    if (generation !== this.generation) {
      return; // a newer request draws
    }
    this.result = result;
    if (result === undefined) {
      this.show(renderMessage(failure ?? '', this.resources));
    } else if (this.width !== undefined) {
      this.show(this.drawn(result));
    }
  }

  private async receive(message: unknown): Promise<void> {
    if (typeof message !== 'object' || message === null) {
      return;
    }
    const { command, range, width } = message as { command?: unknown; range?: unknown; width?: unknown };
    if (command === 'width' && typeof width === 'number') {
      this.width = width;
      if (this.result !== undefined) {
        this.show(this.drawn(this.result));
      }
    } else if (command === 'reveal') {
      const where = decodeRange(range);
      if (where !== undefined) {
        await revealLine(this.source, where.start.line);
      }
    }
  }
}

/** Puts the cursor at the start of `line` (0-based) of `source`, in the editor showing it. */
async function revealLine(source: string, line: number): Promise<void> {
  const at = new vscode.Range(line, 0, line, 0);
  const open = vscode.window.visibleTextEditors.find((e) => sameUri(e.document.uri.toString(), source));
  const editor = await vscode.window.showTextDocument(vscode.Uri.parse(source), {
    viewColumn: open?.viewColumn ?? vscode.ViewColumn.One,
    selection: at,
  });
  editor.revealRange(at, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

export class TimelineManager implements vscode.Disposable {
  private readonly open = new Set<TimelinePanel>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      server.onPreviewChanged((changed) => {
        [...this.open].filter((p) => sameUri(p.source, changed.uri)).forEach((p) => void p.refresh());
      }),
    ];
  }

  /** Shows (or brings forward) the timeline of `source`'s kernels, of one function or all. */
  async show(source: string, fn: string | undefined): Promise<void> {
    let panel = [...this.open].find((p) => sameUri(p.source, source) && p.fn === fn);
    if (panel === undefined) {
      const created = new TimelinePanel(source, fn, this.extensionUri, this.server, this.log);
      created.panel.onDidDispose(() => this.open.delete(created));
      this.open.add(created);
      panel = created;
    } else {
      panel.panel.reveal(undefined, true);
    }
    await panel.refresh();
  }

  dispose(): void {
    for (const p of this.open) {
      p.panel.dispose();
    }
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}

/** `ptols.showTimeline` (the lens: `[uri, function]`) and its palette twin `ptoc.showTimeline`. */
export function registerTimelineCommands(
  timelines: TimelineManager,
  previews: PreviewManager,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand('ptoc.showTimeline', async (resource?: unknown) => {
      const origin = previews.origin(resource);
      if (origin === undefined) {
        void vscode.window.showInformationMessage('Open a PyPTO kernel (a Python file that imports pypto.language) first.');
        return;
      }
      const fn = await previews.pickFunction(origin.source, origin.function);
      if (fn !== null) {
        await timelines.show(origin.source, fn);
      }
    }),
    vscode.commands.registerCommand('ptols.showTimeline', async (...args: unknown[]) => {
      const [source, fn] = args;
      if (typeof source !== 'string' || source === '') {
        log.warn(`ptols.showTimeline: unexpected arguments ${JSON.stringify(args)}`);
        return;
      }
      await timelines.show(source, typeof fn === 'string' && fn !== '' ? fn : undefined);
    }),
  );
}
