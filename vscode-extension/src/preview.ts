/**
 * Generated-code previews: virtual documents (scheme `ptoc-preview`) beside the kernel, asked
 * from the server with `ptols/preview`, refreshed on `ptols/previewChanged`, and following the
 * active editor to whichever PyPTO file the user moves to.
 */
import * as vscode from 'vscode';
import { isPyptoDocument } from './logic/detect';
import { decideFunction, followFunction, passChoices, type Choice } from './logic/pickers';
import {
  decodePreviewQuery,
  encodePreviewQuery,
  PREVIEW_SCHEME,
  previewPath,
  targetLabel,
  targetLanguage,
  type PreviewRequest,
} from './logic/previewUri';
import {
  Methods,
  parseFunctions,
  parsePasses,
  parsePreviewResult,
  type FunctionEntry,
  type PreviewParams,
  type PreviewTarget,
} from './logic/protocol';
import { hasBanner, renderPreview, renderUnavailable } from './logic/render';
import { SpecialisationChoices, specialisationNoteMessage } from './logic/specialisationChoice';
import { readSettings, type ServerController } from './server';
import { errorText, fileName, sameUri } from './uriText';

export function previewUri(request: PreviewRequest): vscode.Uri {
  return vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: previewPath(request), query: encodePreviewQuery(request) });
}

export async function pick<T>(choices: readonly Choice<T>[], placeHolder: string): Promise<Choice<T> | undefined> {
  type Item = vscode.QuickPickItem & { choice?: Choice<T> };
  const items: Item[] = [];
  for (const choice of choices) {
    if (choice.group !== undefined) {
      items.push({ label: choice.group, kind: vscode.QuickPickItemKind.Separator });
    }
    items.push({
      label: choice.label,
      ...(choice.description === undefined ? {} : { description: choice.description }),
      ...(choice.detail === undefined ? {} : { detail: choice.detail }),
      choice,
    });
  }
  const picked = await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true, matchOnDetail: true });
  return picked?.choice;
}

export class PreviewManager implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: { dispose(): unknown }[] = [];
  /** Following runs one switch at a time so quick editor changes do not race. */
  private following: Promise<void> = Promise.resolve();
  /** Previews whose last content is an explanation (errors) rather than code. */
  private readonly explaining = new Set<string>();
  /** Per source document, the @pl.jit specialisation its previews, memory map and Run use. */
  readonly specialisations: SpecialisationChoices;

  readonly onDidChange = this.changeEmitter.event;

  constructor(
    private readonly server: ServerController,
    private readonly log: vscode.LogOutputChannel,
    specialisations: SpecialisationChoices = new SpecialisationChoices(),
  ) {
    this.specialisations = specialisations;
    this.disposables.push(
      this.changeEmitter,
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, this),
      server.onPreviewChanged((changed) => this.refreshSource(changed.uri)),
      server.onRunning(() => this.refreshAll()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        this.following = this.following.then(() => this.follow(editor)).catch((error: unknown) => {
          this.log.warn(`Preview could not follow the editor: ${errorText(error)}`);
        });
      }),
      vscode.workspace.onDidOpenTextDocument((document) => void this.setLanguage(document)),
      vscode.workspace.onDidChangeTextDocument((event) => {
        this.revealExplanation(event.document);
      }),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const request = decodePreviewQuery(uri.query);
    if (request === undefined) {
      return `// ${uri.toString()} is not a PyPTO preview address.\n`;
    }
    const language = targetLanguage(request.target);
    const name = fileName(request.source);
    const what = targetLabel(request.target);
    const params: PreviewParams = {
      textDocument: { uri: request.source },
      target: request.target,
      ...(request.function === undefined ? {} : { function: request.function }),
      ...this.specialisations.fields(request.source),
    };
    try {
      await this.ensureOpen(request.source);
      const result = parsePreviewResult(await this.server.request(Methods.preview, params, token));
      if (result === undefined) {
        return this.explain(uri, renderUnavailable(language, name, what, 'the server sent an answer this extension does not understand.'));
      }
      const note = specialisationNoteMessage(result);
      if (note !== undefined) {
        void vscode.window.setStatusBarMessage(note, 10000);
      }
      const text = renderPreview(result, name, what);
      return result.content === '' || hasBanner(result) ? this.explain(uri, text) : this.codeFor(uri, text);
    } catch (error) {
      this.log.warn(`Preview ${uri.path} failed: ${errorText(error)}`);
      return this.explain(uri, renderUnavailable(language, name, what, `${errorText(error)}.`));
    }
  }

  private explain(uri: vscode.Uri, text: string): string {
    this.explaining.add(uri.toString());
    return text;
  }

  private codeFor(uri: vscode.Uri, text: string): string {
    this.explaining.delete(uri.toString());
    return text;
  }

  /** A short explanation replacing long code would sit above a scrolled-down view: show its top. */
  private revealExplanation(document: vscode.TextDocument): void {
    if (document.uri.scheme !== PREVIEW_SCHEME || !this.explaining.has(document.uri.toString())) {
      return;
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document === document) {
        editor.revealRange(new vscode.Range(0, 0, 0, 0), vscode.TextEditorRevealType.AtTop);
      }
    }
  }

  /**
   * The server previews only documents it has been sent; a preview restored with the window
   * can come before its source, so open the source (without showing it) first.
   */
  private async ensureOpen(source: string): Promise<void> {
    if (vscode.workspace.textDocuments.some((d) => sameUri(d.uri.toString(), source))) {
      return;
    }
    try {
      await vscode.workspace.openTextDocument(vscode.Uri.parse(source));
    } catch (error) {
      this.log.warn(`Could not open ${source} for its preview: ${errorText(error)}`);
    }
  }

  /** Asks VS Code to reload every open preview of `source`. */
  refreshSource(source: string): void {
    for (const document of vscode.workspace.textDocuments) {
      const request = document.uri.scheme === PREVIEW_SCHEME ? decodePreviewQuery(document.uri.query) : undefined;
      if (request !== undefined && sameUri(request.source, source)) {
        this.changeEmitter.fire(document.uri);
      }
    }
  }

  refreshAll(): void {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === PREVIEW_SCHEME) {
        this.changeEmitter.fire(document.uri);
      }
    }
  }

  /** Command entry: `resource` is the editor's URI when run from a title button or context menu. */
  async show(target: PreviewTarget | 'default' | 'pass', resource?: unknown): Promise<void> {
    const origin = this.origin(resource);
    if (origin === undefined) {
      void vscode.window.showInformationMessage(
        'Open a PyPTO kernel (a Python file that imports pypto.language) to preview its generated code.',
      );
      return;
    }
    let chosen: PreviewTarget | undefined;
    if (target === 'default') {
      chosen = readSettings(vscode.Uri.parse(origin.source)).settings.preview.defaultTarget;
    } else if (target === 'pass') {
      chosen = await this.pickPass(origin.source);
    } else {
      chosen = target;
    }
    if (chosen === undefined) {
      return;
    }
    const fn = await this.pickFunction(origin.source, origin.function);
    if (fn === null) {
      return;
    }
    await this.open({ source: origin.source, target: chosen, ...(fn === undefined ? {} : { function: fn }) });
  }

  /** The kernel a command is about: the given file, the active kernel, or the source of the active preview. */
  origin(resource: unknown): { source: string; function?: string } | undefined {
    if (resource instanceof vscode.Uri && resource.scheme === 'file') {
      return { source: resource.toString() };
    }
    const document = vscode.window.activeTextEditor?.document;
    if (document === undefined) {
      return undefined;
    }
    if (document.uri.scheme === PREVIEW_SCHEME) {
      const request = decodePreviewQuery(document.uri.query);
      return request === undefined
        ? undefined
        : { source: request.source, ...(request.function === undefined ? {} : { function: request.function }) };
    }
    return isPyptoDocument(document) ? { source: document.uri.toString() } : undefined;
  }

  async functionsOf(source: string): Promise<FunctionEntry[]> {
    return parseFunctions(await this.server.request(Methods.functions, { textDocument: { uri: source } }));
  }

  /** undefined = whole file; null = the user cancelled (or the server is down, already reported). */
  async pickFunction(source: string, current: string | undefined): Promise<string | undefined | null> {
    let functions: FunctionEntry[];
    try {
      functions = await this.functionsOf(source);
    } catch (error) {
      // Without the list the preview still works for the whole file (and will explain the failure).
      this.log.warn(`Listing functions failed: ${errorText(error)}`);
      return undefined;
    }
    const decision = decideFunction(functions);
    if (decision.kind === 'whole-file') {
      return undefined;
    }
    const ordered = current === undefined
      ? decision.choices
      : [...decision.choices].sort((a, b) => Number(b.value === current) - Number(a.value === current));
    const picked = await pick(ordered, 'Preview which function?');
    return picked === undefined ? null : picked.value;
  }

  private async pickPass(source: string): Promise<PreviewTarget | undefined> {
    let raw: unknown;
    try {
      raw = await this.server.request(Methods.passes, {});
    } catch (error) {
      void vscode.window.showErrorMessage(`Could not list the passes: ${errorText(error)}`);
      return undefined;
    }
    const configured = readSettings(vscode.Uri.parse(source)).settings.pipeline;
    const pipeline = configured === 'auto' ? 'default' : configured; // pass previews' own default
    const picked = await pick(passChoices(parsePasses(raw), pipeline), 'Show the IR after which pass?');
    return picked?.value;
  }

  async open(request: PreviewRequest, column: vscode.ViewColumn = vscode.ViewColumn.Beside): Promise<void> {
    const uri = previewUri(request);
    const wasOpen = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
    const document = await this.setLanguage(await vscode.workspace.openTextDocument(uri));
    await vscode.window.showTextDocument(document, { viewColumn: column, preserveFocus: true, preview: false });
    if (wasOpen) {
      this.changeEmitter.fire(uri); // a preview shown again is asked again, never stale
    }
  }

  /** The path's extension picks the language; this makes sure even if another extension claims it. */
  private async setLanguage(document: vscode.TextDocument): Promise<vscode.TextDocument> {
    const request = document.uri.scheme === PREVIEW_SCHEME ? decodePreviewQuery(document.uri.query) : undefined;
    if (request === undefined) {
      return document;
    }
    const wanted = targetLanguage(request.target);
    if (document.languageId === wanted || !(await vscode.languages.getLanguages()).includes(wanted)) {
      return document;
    }
    try {
      return await vscode.languages.setTextDocumentLanguage(document, wanted);
    } catch (error) {
      this.log.warn(`Could not set ${wanted} on the preview: ${errorText(error)}`);
      return document;
    }
  }

  /** Visible previews switch to the newly active kernel, keeping their target and (if present) function. */
  private async follow(editor: vscode.TextEditor | undefined): Promise<void> {
    if (editor?.document.uri.scheme !== 'file' || !isPyptoDocument(editor.document)) {
      return;
    }
    const source = editor.document.uri.toString();
    const previews = vscode.window.visibleTextEditors.filter((e) => e.document.uri.scheme === PREVIEW_SCHEME);
    for (const preview of previews) {
      const previous = decodePreviewQuery(preview.document.uri.query);
      if (previous === undefined || sameUri(previous.source, source)) {
        continue;
      }
      let fn: string | undefined;
      if (previous.function !== undefined) {
        fn = followFunction(previous.function, await this.functionsOf(source).catch(() => []));
      }
      await this.open({ source, target: previous.target, ...(fn === undefined ? {} : { function: fn }) }, preview.viewColumn);
      await this.closeTab(preview.document.uri, preview.viewColumn);
    }
  }

  private async closeTab(uri: vscode.Uri, column: vscode.ViewColumn | undefined): Promise<void> {
    for (const group of vscode.window.tabGroups.all) {
      if (column !== undefined && group.viewColumn !== column) {
        continue;
      }
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()) {
          await vscode.window.tabGroups.close(tab, true);
        }
      }
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}
