/**
 * The `@pl.jit` specialisation chosen per source document ("PyPTO: Choose Specialisation"): its
 * index and its key (`ptols/specialisations`). Previews, the memory map and Run send both; the
 * server finds the choice by its key, so it survives edits that add, remove or move calls, and
 * answers with a `note` when the chosen one is gone (the kernel's first is used then).
 */

export interface SpecialisationChoice {
  index: number;
  key?: string;
}

export interface SpecialisationFields {
  specialisation?: number;
  specialisationKey?: string;
}

export class SpecialisationChoices {
  private readonly chosen = new Map<string, SpecialisationChoice>();

  get(source: string): SpecialisationChoice | undefined {
    return this.chosen.get(source);
  }

  set(source: string, choice: SpecialisationChoice): void {
    this.chosen.set(source, choice);
  }

  /** The request fields of `source`'s choice (none when nothing was chosen). */
  fields(source: string): SpecialisationFields {
    const choice = this.chosen.get(source);
    if (choice === undefined) {
      return {};
    }
    return { specialisation: choice.index, ...(choice.key === undefined ? {} : { specialisationKey: choice.key }) };
  }
}

/**
 * The status message of a preview whose answer carries the server's `note` (the chosen
 * specialisation is gone): the preview's text stays the generated code, so its lines keep
 * matching the server's source map, and the note shows in the status bar.
 */
export function specialisationNoteMessage(answer: { note?: string }): string | undefined {
  return answer.note === undefined || answer.note === '' ? undefined : `PyPTO: ${answer.note}`;
}
