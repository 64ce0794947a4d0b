/**
 * An answer in one line ("Hosted, “on my own server”"): the chosen options'
 * labels, then the typed words in the page's language's quotation marks,
 * joined by its list separator; the catalog holds both (`app.quoted`,
 * `app.listSeparator`), not the code. The transcript's
 * "Answered: …" and the banner's undoable or winning answer say it this one
 * way.
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { BundleQuestion } from '../model/read-model.js';

type Translate = ReturnType<typeof useTranslation>['t'];

export interface GivenAnswer {
  readonly selected_options: readonly string[];
  readonly custom_text: string;
}

export function describeAnswer(
  t: Translate,
  question: BundleQuestion | undefined,
  answer: GivenAnswer,
): string {
  const labels = answer.selected_options.map(
    (id) => question?.options.find((option) => option.option_id === id)?.label ?? id,
  );
  // Not escaped here: whoever shows the line shows a bidi control in it as a marker, once.
  const typed =
    answer.custom_text === ''
      ? []
      : [t('app.quoted', { text: answer.custom_text, interpolation: { escapeValue: false } })];
  return [...labels, ...typed].join(t('app.listSeparator'));
}

export function useDescribeAnswer(): (
  question: BundleQuestion | undefined,
  answer: GivenAnswer,
) => string {
  const { t } = useTranslation();
  return useCallback(
    (question: BundleQuestion | undefined, answer: GivenAnswer) =>
      describeAnswer(t, question, answer),
    [t],
  );
}
