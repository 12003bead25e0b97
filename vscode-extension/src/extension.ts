/**
 * Entry point. The extension activates for any Python file but stays out of sight until a
 * PyPTO file shows up: only then does it start ptols, show its status item and its commands.
 */
import * as vscode from 'vscode';
import { isPyptoDocument } from './logic/detect';
import { RESTART_SETTINGS } from './logic/settings';
import { SpecialisationChoices } from './logic/specialisationChoice';
import { PREVIEW_SCHEME } from './logic/previewUri';
import { registerFormatOnSave } from './formatOnSave';
import { registerFunctionCommands } from './functionCommands';
import { MemoryMapManager } from './memoryMap';
import { PassExplorer } from './passExplorer';
import { registerPreviewHovers } from './previewHover';
import { ColourBands } from './colourBands';
import { PreviewManager } from './preview';
import { onSelectedInterpreterChanged } from './pythonExtension';
import { Runner } from './run';
import { readSettings, ServerController } from './server';
import { SourceMapController } from './sourceMap';
import { SHOW_LOG_COMMAND, StatusBar } from './statusBar';
import { registerSpecialisationCommand } from './specialisations';
import { registerTaskGraphCommands, taskGraphPanels } from './taskGraph';
import { registerTimelineCommands, timelinePanels } from './timeline';

export const CONTEXT_KEY = 'ptoc.isPyptoFile';
/** Re-reading the active document on every keystroke is wasteful; its imports rarely change. */
const CONTEXT_DEBOUNCE_MS = 300;
const NO_EDITOR_GRACE_MS = 500;

let server: ServerController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('PyPTO', { log: true });
  const controller = new ServerController(log, vscode.Uri.joinPath(context.extensionUri, 'bundled', 'libs').fsPath);
  server = controller;
  const statusBar = new StatusBar();
  const specialisations = new SpecialisationChoices();
  const previews = new PreviewManager(controller, log, specialisations);
  const sourceMaps = new SourceMapController(controller, log);
  const memoryMaps = new MemoryMapManager(context.extensionUri, controller, log, specialisations);
  const runner = new Runner(controller, log, specialisations);
  const timelines = timelinePanels(context.extensionUri, controller, log);
  const taskGraphs = taskGraphPanels(context.extensionUri, controller, log);
  const passExplorer = new PassExplorer(controller, log);
  context.subscriptions.push(
    log,
    controller,
    statusBar,
    previews,
    sourceMaps,
    memoryMaps,
    runner,
    controller.onStatus((event) => statusBar.apply(event)),
    registerFunctionCommands(previews, memoryMaps, runner, log),
    timelines,
    registerTimelineCommands(timelines, previews, log),
    registerSpecialisationCommand(previews, controller, log, (source) => memoryMaps.refreshSource(source)),
    taskGraphs,
    registerTaskGraphCommands(taskGraphs, previews, log),
    passExplorer,
    registerPreviewHovers(controller, log),
    new ColourBands(sourceMaps, log),
  );

  let lastContext: boolean | undefined;
  let noEditorTimer: NodeJS.Timeout | undefined;
  const updateContext = (): void => {
    const document = vscode.window.activeTextEditor?.document;
    clearTimeout(noEditorTimer);
    if (document === undefined) {
      // Switching editors passes through "no editor" for a moment; dropping the key then would
      // hide the commands from a palette opened right after the switch.
      statusBar.setRelevant(false);
      noEditorTimer = setTimeout(() => {
        if (vscode.window.activeTextEditor === undefined && lastContext !== false) {
          lastContext = false;
          void vscode.commands.executeCommand('setContext', CONTEXT_KEY, false);
        }
      }, NO_EDITOR_GRACE_MS);
      return;
    }
    const isPypto = isPyptoDocument(document);
    if (isPypto !== lastContext) {
      lastContext = isPypto;
      void vscode.commands.executeCommand('setContext', CONTEXT_KEY, isPypto);
    }
    statusBar.setRelevant(isPypto || document.uri.scheme === PREVIEW_SCHEME, document.uri.toString());
    if (isPypto && !controller.wanted) {
      void controller.start();
    }
  };
  const startFor = (document: vscode.TextDocument): void => {
    if (!controller.wanted && isPyptoDocument(document)) {
      void controller.start();
    }
  };

  let contextTimer: NodeJS.Timeout | undefined;
  context.subscriptions.push(
    new vscode.Disposable(() => {
      clearTimeout(contextTimer);
      clearTimeout(noEditorTimer);
    }),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
    vscode.workspace.onDidOpenTextDocument(startFor),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document === vscode.window.activeTextEditor?.document) {
        clearTimeout(contextTimer);
        contextTimer = setTimeout(updateContext, CONTEXT_DEBOUNCE_MS);
      }
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('ptoc')) {
        return;
      }
      for (const problem of readSettings().problems) {
        log.warn(problem);
      }
      const changed = RESTART_SETTINGS.find((name) => event.affectsConfiguration(name));
      if (changed !== undefined && controller.wanted) {
        log.info(`${changed} changed: restarting the server`);
        void controller.restart();
      } else {
        previews.refreshAll();
      }
    }),
    onSelectedInterpreterChanged(() => {
      if (controller.wanted && readSettings().settings.python === '') {
        log.info('The Python extension selected another interpreter: restarting the server');
        void controller.restart();
      }
    }),
    registerFormatOnSave(controller, log),
    vscode.commands.registerCommand('ptoc.restartServer', async () => {
      log.info('Restart requested');
      await controller.restart();
    }),
    vscode.commands.registerCommand(SHOW_LOG_COMMAND, () => log.show(true)),
    vscode.commands.registerCommand('ptoc.showPreview', (resource?: unknown) => previews.show('default', resource)),
    vscode.commands.registerCommand('ptoc.showGeneratedCpp', (resource?: unknown) => previews.show('cce', resource)),
    vscode.commands.registerCommand('ptoc.showGeneratedMlir', (resource?: unknown) => previews.show('pto', resource)),
    vscode.commands.registerCommand('ptoc.showPtoasCpp', (resource?: unknown) => previews.show('pto-cpp', resource)),
    vscode.commands.registerCommand('ptoc.showIrAfterPass', (resource?: unknown) => previews.show('pass', resource)),
    vscode.commands.registerCommand('ptoc.goToSource', () => sourceMaps.goToSource()),
  );

  for (const problem of readSettings().problems) {
    log.warn(problem);
  }
  vscode.workspace.textDocuments.forEach(startFor);
  updateContext();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
