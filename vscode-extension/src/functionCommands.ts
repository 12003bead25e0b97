/**
 * Commands about one function of a kernel: the ones the server's CodeLens sends
 * (`ptols.showPreview`, `ptols.showMemoryMap`, `ptols.runFunction`, arguments from the server)
 * and their palette twins, which ask for the kernel and the function.
 */
import * as vscode from 'vscode';
import { decideRunFunction } from './logic/pickers';
import { parseTarget } from './logic/previewUri';
import type { MemoryMapManager } from './memoryMap';
import { pick, type PreviewManager } from './preview';
import { errorText } from './uriText';
import type { Runner } from './run';

/** A document argument: a URI string from the server, or a Uri from a menu. */
function asSource(value: unknown): string | undefined {
  if (value instanceof vscode.Uri) {
    return value.toString();
  }
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function asFunction(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const NO_KERNEL = 'Open a PyPTO kernel (a Python file that imports pypto.language) first.';

export function registerFunctionCommands(
  previews: PreviewManager,
  memoryMaps: MemoryMapManager,
  runner: Runner,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  const badArguments = (command: string, args: unknown[]): void => {
    log.warn(`${command}: unexpected arguments ${JSON.stringify(args)}`);
  };

  const showMemoryMap = async (resource?: unknown): Promise<void> => {
    const origin = previews.origin(resource);
    if (origin === undefined) {
      void vscode.window.showInformationMessage(NO_KERNEL);
      return;
    }
    const fn = await previews.pickFunction(origin.source, origin.function);
    if (fn !== null) {
      await memoryMaps.show(origin.source, fn);
    }
  };

  const runFunction = async (resource?: unknown): Promise<void> => {
    const origin = previews.origin(resource);
    if (origin === undefined) {
      void vscode.window.showInformationMessage(NO_KERNEL);
      return;
    }
    let decision;
    try {
      decision = decideRunFunction(await previews.functionsOf(origin.source), origin.function);
    } catch (error) {
      void vscode.window.showErrorMessage(`Could not list the functions: ${errorText(error)}`);
      return;
    }
    if (decision.kind === 'none') {
      void vscode.window.showInformationMessage('This file has no function to run.');
      return;
    }
    const fn = decision.kind === 'one' ? decision.name : (await pick(decision.choices, 'Run which function?'))?.value;
    if (fn !== undefined) {
      await runner.run(origin.source, fn);
    }
  };

  return vscode.Disposable.from(
    vscode.commands.registerCommand('ptoc.showMemoryMap', showMemoryMap),
    vscode.commands.registerCommand('ptoc.runFunction', runFunction),
    vscode.commands.registerCommand('ptols.showPreview', async (...args: unknown[]) => {
      const source = asSource(args[0]);
      const target = typeof args[1] === 'string' ? parseTarget(args[1]) : undefined;
      const fn = asFunction(args[2]);
      if (source === undefined || target === undefined) {
        badArguments('ptols.showPreview', args);
        return;
      }
      await previews.open({ source, target, ...(fn === undefined ? {} : { function: fn }) });
    }),
    vscode.commands.registerCommand('ptols.showMemoryMap', async (...args: unknown[]) => {
      const source = asSource(args[0]);
      if (source === undefined) {
        badArguments('ptols.showMemoryMap', args);
        return;
      }
      await memoryMaps.show(source, asFunction(args[1]));
    }),
    vscode.commands.registerCommand('ptols.runFunction', async (...args: unknown[]) => {
      const source = asSource(args[0]);
      const fn = asFunction(args[1]);
      if (source === undefined || fn === undefined) {
        badArguments('ptols.runFunction', args);
        return;
      }
      await runner.run(source, fn);
    }),
  );
}
