/**
 * What a consent option does, in Clarion's words. An agent names its own
 * options, and a name can say the opposite of what the option does (an
 * `allow_always` called "Reject (do not run)"), so every surface where a
 * person picks one leads with these words, by the option's kind, and shows
 * the agent's label beside them as the agent's. English, for the surfaces the
 * server renders (notices, the transcript); the web app's English catalog
 * takes them from here and other catalogs translate them. Zod-free, for the
 * browser.
 */
import { labelsReadingTheSame } from './text.js';

export const CONSENT_OPTION_KIND_WORDS = {
  allow_once: 'Allow once',
  allow_always: 'Always allow',
  reject_once: 'Reject once',
  reject_always: 'Always reject',
} as const;

export type ConsentKindWord = keyof typeof CONSENT_OPTION_KIND_WORDS;

/**
 * Labels that say no more than the kind's words: those words, and for a
 * one-time kind its bare verb (an agent's "Reject" is a "Reject once").
 */
const SAME_WORDS: Readonly<Record<ConsentKindWord, readonly string[]>> = {
  allow_once: ['allow once', 'allow'],
  allow_always: ['always allow'],
  reject_once: ['reject once', 'reject'],
  reject_always: ['always reject'],
};

/**
 * The option as a server-rendered surface names it: Clarion's words, then the
 * agent's label, unless the label says nothing more (`saysOnly`).
 */
export function consentChoiceText(kind: ConsentKindWord, label: string): string {
  const words = CONSENT_OPTION_KIND_WORDS[kind];
  return saysOnly(kind, label) ? words : `${words} (agent’s label: “${label}”)`;
}

/** Whether the agent's `label` says only what Clarion's words for `kind` say (case and spaces aside). */
export function saysOnly(kind: ConsentKindWord, label: string): boolean {
  return SAME_WORDS[kind].includes(label.trim().replace(/\s+/g, ' ').toLowerCase());
}

/**
 * For each option, the index of the first earlier one a person reads as the
 * same choice, or undefined when none does. Every surface leads with the
 * kind's words and shows the agent's label beside them, so two options read
 * the same when they are of one kind and their labels read the same
 * (`labelsReadingTheSame`: "Allow" and "allow", or "Аllow" with a Cyrillic
 * `А`) or both say only the kind's words (`saysOnly`: "Allow" and "Allow
 * once"). Options of different kinds never read the same: their words differ.
 */
export function consentOptionsReadingTheSame(
  options: readonly { readonly kind: ConsentKindWord; readonly label: string }[],
): (number | undefined)[] {
  const twins: (number | undefined)[] = options.map(() => undefined);
  for (const kind of Object.keys(CONSENT_OPTION_KIND_WORDS) as ConsentKindWord[]) {
    const at = options.flatMap((option, index) => (option.kind === kind ? [index] : []));
    const labels = at.map((index) => options[index]?.label ?? '');
    const alike = labelsReadingTheSame(labels);
    const plain = at.find((_, k) => saysOnly(kind, labels[k] ?? ''));
    at.forEach((index, k) => {
      const first = alike[k];
      const candidates = [
        first === undefined ? undefined : at[first],
        plain !== undefined && plain < index && saysOnly(kind, labels[k] ?? '') ? plain : undefined,
      ].filter((candidate): candidate is number => candidate !== undefined);
      twins[index] = candidates.length === 0 ? undefined : Math.min(...candidates);
    });
  }
  return twins;
}
