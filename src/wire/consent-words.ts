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
