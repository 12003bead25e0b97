/**
 * The pass explorer: the "PyPTO Passes" view lists the passes that changed the IR of the
 * active kernel with their `+added −removed` lines (from `ptols/passDiff`), names those that
 * changed nothing, and opens the selected pass as a side-by-side diff of the IR before and
 * after it. Alt+] / Alt+[ step through the passes; a click on a line of either side
 * highlights and reveals the kernel line it came from (each stage's own source map).
 */
import * as vscode from 'vscode';
import { isPyptoDocument } from './logic/detect';
import {
  PASS_SCHEME,
  diffTitle,
  hiddenPasses,
  passCounts,
  passTooltip,
  shownPasses,
  sourceOfLine,
  stageFor,
  stagePath,
  step,
  type PassRef,
} from './logic/passExplorer';
import { Methods, parsePassDiff, type LspRange, type PassDiffResult } from './logic/protocol';
import type { ServerController } from './server';
import { HIGHLIGHT_COLOUR } from './sourceMap';
import { errorText, fileName, sameUri } from './uriText';

export const PASSES_VIEW = 'ptoc.passes';
/** Set once a PyPTO file was seen: the view is contributed under it. */
const CONTEXT = 'ptoc.passExplorer';
/** Every pass's IR is printed again after an edit: not on every keystroke. */
const REFRESH_DEBOUNCE_MS = 400;

type Node = { kind: 'pass'; ref: PassRef } | { kind: 'note'; text: string; tooltip?: string };

export class PassExplorer implements vscode.TreeDataProvider<Node>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly disposables: { dispose(): unknown }[] = [];
  private readonly treeChanged = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.treeChanged.event;
  private readonly docsChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docsChanged.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor(HIGHLIGHT_COLOUR),
    isWholeLine: true,
  });
  private source: string | undefined;
  private result: PassDiffResult | undefined;
  private message = 'Open a PyPTO kernel to see what each pass does to it.';
  private selected: PassRef | undefined;
  private nodes: Node[] = [];
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.view = vscode.window.createTreeView(PASSES_VIEW, { treeDataProvider: this, showCollapseAll: false });
    this.disposables.push(
      this.view,
      this.treeChanged,
      this.docsChanged,
      this.highlight,
      vscode.workspace.registerTextDocumentContentProvider(PASS_SCHEME, this),
      this.view.onDidChangeVisibility(() => this.follow(vscode.window.activeTextEditor)),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.follow(editor)),
      vscode.window.onDidChangeTextEditorSelection((event) => this.onSelection(event)),
      server.onPreviewChanged((changed) => {
        if (this.source !== undefined && sameUri(this.source, changed.uri)) {
          clearTimeout(this.timer);
          this.timer = setTimeout(() => void this.refresh(), REFRESH_DEBOUNCE_MS);
        }
      }),
      server.onRunning(() => void this.refresh()),
      vscode.commands.registerCommand('ptoc.showPassExplorer', () => this.reveal()),
      vscode.commands.registerCommand('ptoc.showPassDiff', (ref?: PassRef) => this.open(ref ?? this.selected)),
      vscode.commands.registerCommand('ptoc.nextPass', () => this.step(1)),
      vscode.commands.registerCommand('ptoc.previousPass', () => this.step(-1)),
    );
    this.follow(vscode.window.activeTextEditor);
  }

  /** The active kernel becomes the explorer's (other editors, the diffs included, leave it). */
  private follow(editor: vscode.TextEditor | undefined): void {
    if (editor?.document.uri.scheme !== 'file' || !isPyptoDocument(editor.document)) {
      return;
    }
    void vscode.commands.executeCommand('setContext', CONTEXT, true);
    const source = editor.document.uri.toString();
    if (source !== this.source) {
      this.source = source;
      this.result = undefined;
      this.selected = undefined;
    }
    if (this.view.visible && this.result === undefined) {
      void this.refresh();
    }
  }

  async refresh(): Promise<void> {
    const source = this.source;
    if (source === undefined || !this.view.visible) {
      return;
    }
    const generation = ++this.generation;
    let result: PassDiffResult | undefined;
    try {
      result = parsePassDiff(await this.server.request(Methods.passDiff, { textDocument: { uri: source } }));
      this.message = result === undefined ? 'The language server sent an answer this extension does not understand.' : '';
    } catch (error) {
      this.log.warn(`The passes of ${source} failed: ${errorText(error)}`);
      this.message = `No passes for ${fileName(source)}: ${errorText(error)}.`;
    }
    if (generation !== this.generation) {
      return;
    }
    this.result = result;
    this.view.description = result === undefined ? '' : `${fileName(source)} · ${result.pipeline}`;
    this.treeChanged.fire(undefined);
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === PASS_SCHEME) {
        this.docsChanged.fire(document.uri);
      }
    }
  }

  getChildren(node?: Node): Node[] {
    if (node !== undefined) {
      return [];
    }
    const result = this.result;
    if (result === undefined) {
      this.nodes = [{ kind: 'note', text: this.message || 'Asking the language server…' }];
      return this.nodes;
    }
    const nodes: Node[] = shownPasses(result).map((ref) => ({ kind: 'pass', ref }));
    for (const program of result.programs) {
      const hidden = hiddenPasses(program);
      if (hidden.length > 0) {
        const text = `${hidden.length} unchanged pass${hidden.length === 1 ? '' : 'es'} hidden`;
        nodes.push({ kind: 'note', text, tooltip: `${program.program}: ${hidden.join(', ')}` });
      }
    }
    if (result.programs.length === 0) {
      nodes.push({ kind: 'note', text: result.diagnostics[0]?.message ?? 'No program to compile.' });
    }
    this.nodes = nodes;
    return nodes;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'note') {
      const item = new vscode.TreeItem(node.text);
      if (node.tooltip !== undefined) {
        item.tooltip = node.tooltip;
      }
      return item;
    }
    const program = this.result?.programs[node.ref.program];
    const change = program?.passes[node.ref.pass];
    const item = new vscode.TreeItem(change?.name ?? '?');
    if (change !== undefined && program !== undefined) {
      const several = (this.result?.programs.length ?? 0) > 1;
      item.description = several ? `${passCounts(change)} · ${program.program}` : passCounts(change);
      item.tooltip = passTooltip(change);
      item.id = `${program.program}/${node.ref.pass}/${change.name}`;
    }
    item.iconPath = new vscode.ThemeIcon('diff');
    item.command = { command: 'ptoc.showPassDiff', title: 'Show Pass Diff', arguments: [node.ref] };
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (this.result === undefined ? undefined : stageFor(this.result, uri.path)?.content) ?? '';
  }

  private stageUri(ref: PassRef, side: 'before' | 'after'): vscode.Uri | undefined {
    const program = this.result?.programs[ref.program];
    const change = program?.passes[ref.pass];
    if (program === undefined || change === undefined || this.source === undefined) {
      return undefined;
    }
    const path = stagePath(program, side === 'before' ? change.before : change.after);
    return vscode.Uri.from({ scheme: PASS_SCHEME, path, query: this.source });
  }

  private async reveal(): Promise<void> {
    this.follow(vscode.window.activeTextEditor);
    await vscode.commands.executeCommand(`${PASSES_VIEW}.focus`);
    await this.refresh();
  }

  private async open(ref: PassRef | undefined): Promise<void> {
    const change = ref === undefined ? undefined : this.result?.programs[ref.program]?.passes[ref.pass];
    const before = ref && this.stageUri(ref, 'before');
    const after = ref && this.stageUri(ref, 'after');
    if (ref === undefined || change === undefined || before === undefined || after === undefined) {
      return;
    }
    this.selected = ref;
    const node = this.nodes.find((n) => n.kind === 'pass' && n.ref.program === ref.program && n.ref.pass === ref.pass);
    if (node !== undefined && this.view.visible) {
      void this.view.reveal(node, { select: true, focus: false });
    }
    // Stepping replaces the shown diff in its group rather than opening a group per pass.
    const shown = vscode.window.tabGroups.all.find((group) =>
      group.tabs.some((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === PASS_SCHEME),
    );
    await vscode.commands.executeCommand('vscode.diff', before, after, diffTitle(change), {
      preview: true,
      preserveFocus: false,
      viewColumn: shown?.viewColumn ?? vscode.ViewColumn.Beside,
    });
  }

  private async step(delta: 1 | -1): Promise<void> {
    if (this.result === undefined) {
      await this.reveal();
    }
    const result = this.result;
    const next = result === undefined ? undefined : step(result, this.selected, delta);
    if (next === undefined) {
      void vscode.window.setStatusBarMessage(delta > 0 ? 'PyPTO: the last pass' : 'PyPTO: the first pass', 2000);
      return;
    }
    await this.open(next);
  }

  /** A click in either side of a pass diff: highlight and reveal the kernel line it came from. */
  private onSelection(event: vscode.TextEditorSelectionChangeEvent): void {
    const uri = event.textEditor.document.uri;
    if (uri.scheme !== PASS_SCHEME || this.source === undefined || !sameUri(uri.query, this.source)) {
      return;
    }
    const stage = this.result === undefined ? undefined : stageFor(this.result, uri.path);
    const line = event.textEditor.selection.active.line;
    const range = stage === undefined ? undefined : sourceOfLine(stage, line);
    if (range === undefined) {
      return;
    }
    void this.revealSource(range);
  }

  private async revealSource(range: LspRange): Promise<void> {
    const target = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
    const source = this.source;
    if (source === undefined) {
      return;
    }
    const visible = vscode.window.visibleTextEditors.find((e) => sameUri(e.document.uri.toString(), source));
    const editor = visible ?? await vscode.window.showTextDocument(vscode.Uri.parse(source), {
      viewColumn: vscode.ViewColumn.One,
      preserveFocus: true,
    });
    editor.setDecorations(this.highlight, [target]);
    editor.revealRange(target, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
