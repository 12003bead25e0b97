/**
 * Source ↔ generated code: the cursor in a kernel highlights (and scrolls to) the lines it
 * became in the visible previews; the cursor or a click in a preview highlights the source it
 * came from. Maps come from `ptols/sourceMap`, one per preview document version, and are used
 * only when their text is exactly the preview's (else the lines would point at other code).
 */
import * as vscode from 'vscode';
import { decodePreviewQuery, PREVIEW_SCHEME, type PreviewRequest } from './logic/previewUri';
import { Methods, parseSourceMap, type LspRange, type SourceMapParams, type SourceMapResult } from './logic/protocol';
import { entryAt, generatedSpansFor, mapMatchesPreview, type LineSpan } from './logic/sourceMap';
import { errorText, sameUri } from './uriText';
import type { ServerController } from './server';

/** Contributed in package.json, so themes can change it. */
export const HIGHLIGHT_COLOUR = 'ptoc.sourceMapHighlightBackground';
/** Typing moves the cursor on every key: wait for a pause before asking and scrolling. */
const CURSOR_DEBOUNCE_MS = 120;

function lineRange(span: LineSpan): vscode.Range {
  return new vscode.Range(span.startLine, 0, span.endLine, 0);
}

function toRange(range: LspRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

interface CachedMap {
  version: number;
  /** Undefined: none, or not for the text the preview shows now. */
  map: Promise<SourceMapResult | undefined>;
}

export class SourceMapController implements vscode.Disposable {
  private readonly disposables: { dispose(): unknown }[] = [];
  private readonly maps = new Map<string, CachedMap>();
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor(HIGHLIGHT_COLOUR),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
    isWholeLine: true,
  });
  private timer: NodeJS.Timeout | undefined;
  /** The last place the user put the cursor, replayed when a preview's text changes. */
  private lastCursor: { editor: vscode.TextEditor; position: vscode.Position } | undefined;

  constructor(
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      this.highlight,
      vscode.window.onDidChangeTextEditorSelection((event) => {
        this.schedule(event.textEditor, event.selections[0]?.active ?? event.textEditor.selection.active);
      }),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.scheme === PREVIEW_SCHEME && this.lastCursor !== undefined) {
          this.maps.delete(event.document.uri.toString());
          this.schedule(this.lastCursor.editor, this.lastCursor.position);
        }
      }),
      vscode.workspace.onDidCloseTextDocument((document) => this.maps.delete(document.uri.toString())),
      vscode.window.onDidChangeVisibleTextEditors(() => {
        if (this.lastCursor !== undefined) {
          this.schedule(this.lastCursor.editor, this.lastCursor.position);
        }
      }),
    );
  }

  private schedule(editor: vscode.TextEditor, position: vscode.Position): void {
    const scheme = editor.document.uri.scheme;
    if (scheme !== 'file' && scheme !== PREVIEW_SCHEME) {
      return;
    }
    this.lastCursor = { editor, position };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const follow = scheme === PREVIEW_SCHEME ? this.fromPreview(editor, position) : this.fromSource(editor, position);
      follow.catch((error: unknown) => this.log.warn(`Source map: ${errorText(error)}`));
    }, CURSOR_DEBOUNCE_MS);
  }

  /** The map for a preview as it is shown now (cached per document version). */
  mapFor(preview: vscode.TextDocument): Promise<SourceMapResult | undefined> {
    const key = preview.uri.toString();
    const cached = this.maps.get(key);
    if (cached?.version === preview.version) {
      return cached.map;
    }
    const request = decodePreviewQuery(preview.uri.query);
    const map = request === undefined ? Promise.resolve(undefined) : this.fetch(request, preview);
    this.maps.set(key, { version: preview.version, map });
    return map;
  }

  private async fetch(request: PreviewRequest, preview: vscode.TextDocument): Promise<SourceMapResult | undefined> {
    const params: SourceMapParams = {
      textDocument: { uri: request.source },
      target: request.target,
      ...(request.function === undefined ? {} : { function: request.function }),
    };
    const text = preview.getText();
    try {
      const map = parseSourceMap(await this.server.request(Methods.sourceMap, params));
      return map !== undefined && mapMatchesPreview(map, text) ? map : undefined;
    } catch (error) {
      this.log.warn(`ptols/sourceMap failed for ${preview.uri.path}: ${errorText(error)}`);
      return undefined;
    }
  }

  private previewsOf(source: vscode.Uri): vscode.TextEditor[] {
    return vscode.window.visibleTextEditors.filter((editor) => {
      if (editor.document.uri.scheme !== PREVIEW_SCHEME) {
        return false;
      }
      const request = decodePreviewQuery(editor.document.uri.query);
      return request !== undefined && sameUri(request.source, source.toString());
    });
  }

  private async fromSource(editor: vscode.TextEditor, position: vscode.Position): Promise<void> {
    editor.setDecorations(this.highlight, []); // the cursor marks the source line itself
    for (const preview of this.previewsOf(editor.document.uri)) {
      const map = await this.mapFor(preview.document);
      const spans = map === undefined ? [] : generatedSpansFor(map.entries, position);
      preview.setDecorations(this.highlight, spans.map(lineRange));
      if (spans.length > 0) {
        const first = spans[0];
        const last = spans[spans.length - 1];
        preview.revealRange(new vscode.Range(first.startLine, 0, last.endLine, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
  }

  private async fromPreview(preview: vscode.TextEditor, position: vscode.Position): Promise<void> {
    const request = decodePreviewQuery(preview.document.uri.query);
    if (request === undefined) {
      return;
    }
    const map = await this.mapFor(preview.document);
    const entry = map === undefined ? undefined : entryAt(map.entries, position.line);
    preview.setDecorations(this.highlight, entry === undefined ? [] : [lineRange(entry.generated)]);
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme === 'file' && sameUri(editor.document.uri.toString(), request.source)) {
        const range = entry === undefined ? undefined : toRange(entry.source);
        editor.setDecorations(this.highlight, range === undefined ? [] : [range]);
        if (range !== undefined) {
          editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        }
      }
    }
  }

  /** "Go to Source" from a preview's context menu: the source of the line under the cursor. */
  async goToSource(): Promise<void> {
    const preview = vscode.window.activeTextEditor;
    const request = preview?.document.uri.scheme === PREVIEW_SCHEME ? decodePreviewQuery(preview.document.uri.query) : undefined;
    if (preview === undefined || request === undefined) {
      void vscode.window.showInformationMessage('"Go to Source" works in a PyPTO preview.');
      return;
    }
    const map = await this.mapFor(preview.document);
    const entry = map === undefined ? undefined : entryAt(map.entries, preview.selection.active.line);
    if (entry === undefined) {
      const why = map === undefined ? 'the preview has no source map (is it up to date?)' : 'this line comes from no source line';
      void vscode.window.showInformationMessage(`No source for line ${preview.selection.active.line + 1}: ${why}.`);
      return;
    }
    const source = vscode.Uri.parse(request.source);
    const visible = vscode.window.visibleTextEditors.find((e) => sameUri(e.document.uri.toString(), request.source));
    const range = toRange(entry.source);
    const editor = await vscode.window.showTextDocument(source, {
      viewColumn: visible?.viewColumn ?? vscode.ViewColumn.One,
      selection: new vscode.Range(range.start, range.start),
    });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    this.maps.clear();
  }
}
