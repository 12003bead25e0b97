/**
 * The ptols protocol extensions (see README "Server protocol"), with light validation:
 * replies come from another process, so they are checked before the UI trusts them.
 */

export const Methods = {
  preview: 'ptols/preview',
  previewChanged: 'ptols/previewChanged',
  functions: 'ptols/functions',
  passes: 'ptols/passes',
  status: 'ptols/status',
} as const;

/** `cce` = C++ on pto-isa, `pto` = MLIR in the PTO dialect, `ir` = IR as written, `pass:X` = IR after pass X. */
export type PreviewTarget = 'cce' | 'pto' | 'pto-cpp' | 'ir' | `pass:${string}`;
export type PreviewLanguage = 'cpp' | 'mlir' | 'python';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface PreviewParams {
  textDocument: { uri: string };
  target: PreviewTarget;
  function?: string;
}

export interface PreviewDiagnostic {
  range: LspRange;
  severity: number;
  code?: string;
  message: string;
}

export interface PreviewResult {
  language: PreviewLanguage;
  content: string;
  version: number | null;
  diagnostics: PreviewDiagnostic[];
}

export interface FunctionEntry {
  name: string;
  program: string | null;
  range: LspRange;
}

export interface PassEntry {
  name: string;
  description: string;
}

export interface PassesResult {
  passes: PassEntry[];
  pipelines: Record<string, string[]>;
}

export interface StatusParams {
  state: 'analysing' | 'ready';
  uri?: string;
}

export interface PreviewChangedParams {
  uri: string;
  version: number | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPosition(value: unknown): value is LspPosition {
  return isObject(value) && typeof value.line === 'number' && typeof value.character === 'number';
}

export function isRange(value: unknown): value is LspRange {
  return isObject(value) && isPosition(value.start) && isPosition(value.end);
}

const ORIGIN: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
const PREVIEW_LANGUAGES: readonly string[] = ['cpp', 'mlir', 'python'];

function parseDiagnostic(value: unknown): PreviewDiagnostic | undefined {
  if (!isObject(value) || typeof value.message !== 'string') {
    return undefined;
  }
  const code = typeof value.code === 'string' || typeof value.code === 'number' ? String(value.code) : undefined;
  return {
    range: isRange(value.range) ? value.range : ORIGIN,
    severity: typeof value.severity === 'number' ? value.severity : 1,
    ...(code === undefined ? {} : { code }),
    message: value.message,
  };
}

export function parsePreviewResult(value: unknown): PreviewResult | undefined {
  if (!isObject(value) || typeof value.content !== 'string') {
    return undefined;
  }
  const language = typeof value.language === 'string' && PREVIEW_LANGUAGES.includes(value.language)
    ? (value.language as PreviewLanguage)
    : 'python';
  const diagnostics = Array.isArray(value.diagnostics)
    ? value.diagnostics.map(parseDiagnostic).filter((d): d is PreviewDiagnostic => d !== undefined)
    : [];
  return {
    language,
    content: value.content,
    version: typeof value.version === 'number' ? value.version : null,
    diagnostics,
  };
}

export function parseFunctions(value: unknown): FunctionEntry[] {
  if (!isObject(value) || !Array.isArray(value.functions)) {
    return [];
  }
  const entries: FunctionEntry[] = [];
  for (const item of value.functions) {
    if (isObject(item) && typeof item.name === 'string') {
      entries.push({
        name: item.name,
        program: typeof item.program === 'string' ? item.program : null,
        range: isRange(item.range) ? item.range : ORIGIN,
      });
    }
  }
  return entries;
}

export function parsePasses(value: unknown): PassesResult {
  const result: PassesResult = { passes: [], pipelines: {} };
  if (!isObject(value)) {
    return result;
  }
  if (Array.isArray(value.passes)) {
    for (const item of value.passes) {
      if (isObject(item) && typeof item.name === 'string') {
        result.passes.push({
          name: item.name,
          description: typeof item.description === 'string' ? item.description : '',
        });
      }
    }
  }
  if (isObject(value.pipelines)) {
    for (const [name, passes] of Object.entries(value.pipelines)) {
      if (Array.isArray(passes)) {
        result.pipelines[name] = passes.filter((p): p is string => typeof p === 'string');
      }
    }
  }
  return result;
}

export function parseStatus(value: unknown): StatusParams | undefined {
  if (!isObject(value) || (value.state !== 'analysing' && value.state !== 'ready')) {
    return undefined;
  }
  return typeof value.uri === 'string' ? { state: value.state, uri: value.uri } : { state: value.state };
}

export function parsePreviewChanged(value: unknown): PreviewChangedParams | undefined {
  if (!isObject(value) || typeof value.uri !== 'string') {
    return undefined;
  }
  return { uri: value.uri, version: typeof value.version === 'number' ? value.version : null };
}
