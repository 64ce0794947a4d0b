/**
 * Why a notice or a channel's test was not delivered, as a clause in the
 * page's language, from the code the server sends beside its English
 * (`src/wire/delivery-errors.ts`). A last delivery stored before codes were
 * kept, or a code a newer server added, has no words here: its stored text
 * is shown as it came, rather than nothing.
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { isDeliveryErrorCode } from '../../../src/wire/delivery-errors.js';

export interface DeliveryError {
  readonly error: string | null;
  readonly error_code?: string | null | undefined;
  readonly status?: number | null | undefined;
}

export function useDeliveryError(): (failed: DeliveryError) => string {
  const { t } = useTranslation();
  return useCallback(
    (failed: DeliveryError) =>
      isDeliveryErrorCode(failed.error_code)
        ? t(`notifications.deliveryError.${failed.error_code}`, {
            status: failed.status ?? '?',
          })
        : (failed.error ?? ''),
    [t],
  );
}
