/** Settings → "Notifications on this device" in a page whose browser has a stand-in push service. */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { WAIT } from './clarification-pages.js';
import { fakePushManager } from './fake-push-manager.js';
import { DEVICE_CHANNEL_KEY } from '../../../web/src/model/push-channel.js';
import { en } from '../../../web/src/i18n/en.js';

/** What the page keeps for this device's subscription. */
export interface DeviceRecord {
  endpoint: string;
  channelId: string;
}

export interface DeviceSettings {
  readonly section: Locator;
  /** Waits until the device's section reads `state`. */
  readonly reads: (state: 'on' | 'off') => Promise<void>;
  /** Presses the section's button and waits until it reads `state`. */
  readonly turn: (state: 'on' | 'off') => Promise<void>;
  readonly recorded: () => Promise<DeviceRecord | null>;
}

/**
 * Grants notifications, installs `pushManager` (a `fakePushManager()` unless
 * given) and opens Settings, whose device section is then read off.
 */
export async function deviceSettings(
  context: BrowserContext,
  page: Page,
  origin: string,
  pushManager: string = fakePushManager(),
): Promise<DeviceSettings> {
  await context.grantPermissions(['notifications'], { origin });
  await context.addInitScript(pushManager);
  await page.goto(`${origin}/settings`);
  const section = page.getByTestId('device-notifications');
  const reads = (state: 'on' | 'off') =>
    section.and(page.locator(`[data-state="${state}"]`)).waitFor(WAIT);
  return {
    section,
    reads,
    turn: async (state) => {
      const name = state === 'on' ? en.devicePush.turnOn : en.devicePush.turnOff;
      await section.getByRole('button', { name }).click();
      await reads(state);
    },
    recorded: () =>
      page.evaluate<DeviceRecord | null>(
        `JSON.parse(localStorage.getItem(${JSON.stringify(DEVICE_CHANNEL_KEY)}) ?? 'null')`,
      ),
  };
}
