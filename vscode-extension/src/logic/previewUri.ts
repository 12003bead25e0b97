/**
 * Preview documents are virtual: `ptoc-preview:/<stem>[.<function>].<suffix>?source=..&target=..`.
 * The path only names the tab (and gives VS Code a matching file extension); the query carries
 * everything needed to ask the server again, so a preview survives a window reload.
 */
import type { PreviewLanguage, PreviewTarget } from './protocol';

export const PREVIEW_SCHEME = 'ptoc-preview';

export interface PreviewRequest {
  /** The source document's URI, as the language client sends it (`Uri.toString()`). */
  source: string;
  target: PreviewTarget;
  function?: string;
}

const PASS_NAME = /^[A-Za-z_][\w.-]*$/;

export function parseTarget(value: string): PreviewTarget | undefined {
  if (value === 'cce' || value === 'pto' || value === 'pto-cpp' || value === 'ir') {
    return value;
  }
  if (value.startsWith('pass:') && PASS_NAME.test(value.slice('pass:'.length))) {
    return value as PreviewTarget;
  }
  return undefined;
}

export function targetLanguage(target: PreviewTarget): PreviewLanguage {
  if (target === 'cce' || target === 'pto-cpp') {
    return 'cpp';
  }
  return target === 'pto' ? 'mlir' : 'python';
}

export function targetLabel(target: PreviewTarget): string {
  switch (target) {
    case 'cce':
      return 'C++';
    case 'pto':
      return 'MLIR';
    case 'pto-cpp':
      return 'PTOAS C++';
    case 'ir':
      return 'IR';
    default:
      return `IR after ${target.slice('pass:'.length)}`;
  }
}

function targetSuffix(target: PreviewTarget): string {
  switch (target) {
    case 'cce':
      return '.cpp';
    case 'pto':
      return '.mlir';
    case 'pto-cpp':
      return '.ptoas.cpp';
    case 'ir':
      return '.ir.py';
    default:
      return `.${target.slice('pass:'.length)}.py`;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `file:///k/simple_add.py` -> `simple_add`; works for any scheme without parsing it fully. */
export function sourceStem(source: string): string {
  const withoutSuffix = source.replace(/[?#].*$/, '');
  const afterScheme = withoutSuffix.replace(/^[A-Za-z][\w+.-]*:/, '');
  const segments = afterScheme.split('/').filter((segment) => segment !== '');
  const name = safeDecode(segments.length > 0 ? segments[segments.length - 1] : 'untitled');
  const stem = name.replace(/\.pyi?$/, '');
  return stem === '' ? 'untitled' : stem;
}

/** Path of the preview document; the file name is what the tab shows. */
export function previewPath(request: PreviewRequest): string {
  const functionPart = request.function === undefined ? '' : `.${request.function}`;
  return `/${sourceStem(request.source)}${functionPart}${targetSuffix(request.target)}`;
}

export function encodePreviewQuery(request: PreviewRequest): string {
  const params = new URLSearchParams({ source: request.source, target: request.target });
  if (request.function !== undefined) {
    params.set('function', request.function);
  }
  return params.toString();
}

export function decodePreviewQuery(query: string): PreviewRequest | undefined {
  const params = new URLSearchParams(query);
  const source = params.get('source');
  const target = parseTarget(params.get('target') ?? '');
  if (source === null || source === '' || target === undefined) {
    return undefined;
  }
  const fn = params.get('function');
  return fn === null || fn === '' ? { source, target } : { source, target, function: fn };
}
