/**
 * The server's state as the status bar shows it. Pure: events in, state out; the
 * presentation is derived from the state so the two never disagree.
 */

export type ServerPhase = 'stopped' | 'starting' | 'ready' | 'analysing' | 'failed';

export interface StatusState {
  readonly phase: ServerPhase;
  /** Documents the server reported as being analysed and not yet reported ready. */
  readonly pending: ReadonlySet<string>;
  /** Why the server failed (shown in the tooltip). */
  readonly detail?: string;
  /** Which ptoc runs, on which Python, while it runs (shown in the tooltip). */
  readonly server?: string;
  /** Each document's language edition as the server last reported it (shown for the active one). */
  readonly editions?: ReadonlyMap<string, string>;
}

export type StatusEvent =
  | { kind: 'starting' }
  | { kind: 'running'; server?: string }
  | { kind: 'analysis'; state: 'analysing' | 'ready'; uri?: string; edition?: string }
  | { kind: 'failed'; detail: string }
  | { kind: 'stopped' };

/** Key for `ptols/status` notifications that name no document. */
const WHOLE_WORKSPACE = '*';

export const INITIAL_STATUS: StatusState = { phase: 'stopped', pending: new Set() };

export function nextStatus(state: StatusState, event: StatusEvent): StatusState {
  switch (event.kind) {
    case 'starting':
      return { phase: 'starting', pending: new Set() };
    case 'running':
      // A late "running" must not hide a failure that was already reported.
      return state.phase === 'failed' ? state : { phase: 'ready', pending: new Set(), ...(event.server === undefined ? {} : { server: event.server }) };
    case 'failed':
      return { phase: 'failed', pending: new Set(), detail: event.detail };
    case 'stopped':
      return state.phase === 'failed' ? state : { phase: 'stopped', pending: new Set() };
    case 'analysis':
      return withEdition(applyAnalysis(state, event.state, event.uri), event.uri, event.edition);
  }
}

function withEdition(state: StatusState, uri: string | undefined, edition: string | undefined): StatusState {
  if (uri === undefined || edition === undefined || (state.phase !== 'ready' && state.phase !== 'analysing')) {
    return state;
  }
  const editions = new Map(state.editions ?? []);
  editions.set(uri, edition);
  return { ...state, editions };
}

function applyAnalysis(state: StatusState, analysis: 'analysing' | 'ready', uri: string | undefined): StatusState {
  // Progress only means something while the server runs.
  if (state.phase !== 'ready' && state.phase !== 'analysing') {
    return state;
  }
  const pending = new Set(state.pending);
  if (analysis === 'analysing') {
    pending.add(uri ?? WHOLE_WORKSPACE);
  } else if (uri === undefined) {
    pending.clear();
  } else {
    pending.delete(uri);
  }
  return { ...state, phase: pending.size > 0 ? 'analysing' : 'ready', pending };
}

export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** What screen readers say (and what tests look for): the state without the click hint. */
  label: string;
  /** Failed states get the error background so they are noticed. */
  isError: boolean;
}

const ICONS: Record<ServerPhase, string> = {
  stopped: '$(circle-slash)',
  starting: '$(loading~spin)',
  ready: '$(check)',
  analysing: '$(sync~spin)',
  failed: '$(error)',
};

/** `activeUri`: the document in the active editor, whose language edition is shown. */
export function describeStatus(state: StatusState, activeUri?: string): StatusPresentation {
  const detail = state.phase === 'failed' && state.detail ? ` (${state.detail})` : '';
  const label = `PyPTO language server: ${state.phase}${detail}`;
  const edition = activeUri === undefined ? undefined : state.editions?.get(activeUri);
  const version = edition?.match(/^PyPTO (\S+)/)?.[1];
  return {
    text: `${ICONS[state.phase]} PyPTO${version === undefined ? '' : ` ${version}`}`,
    tooltip: `${label}.${state.server === undefined ? '' : ` ${state.server}.`}${edition === undefined ? '' : ` Edition: ${edition}.`} Click to show the PyPTO log.`,
    label,
    isError: state.phase === 'failed',
  };
}
