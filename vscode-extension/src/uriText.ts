/**
 * Small helpers on URIs and errors shared by the views (kept apart from the preview so that a
 * view can be loaded without the language client).
 */
import * as vscode from 'vscode';

/** Compares URIs the way VS Code prints them (the server may escape differently). */
export function sameUri(a: string, b: string): boolean {
  if (a === b) {
    return true;
  }
  try {
    return vscode.Uri.parse(a).toString() === vscode.Uri.parse(b).toString();
  } catch {
    return false;
  }
}

/** The file name a URI ends in, for titles and messages. */
export function fileName(source: string): string {
  try {
    const path = vscode.Uri.parse(source).path;
    return path.slice(path.lastIndexOf('/') + 1) || source;
  } catch {
    return source;
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
