/**
 * The tab's icon with the waiting count drawn on it, so a pinned or crowded
 * tab still says how much waits. Drawn on a canvas from the app's own icon;
 * the link goes back to the plain icon when nothing waits. Browser-only.
 */

const ICON_SIZE_PX = 32;
const BADGE_RADIUS_PX = 10;

/** The label in the badge: the count, or `9+` where two digits would not fit. */
export function badgeLabel(count: number): string {
  return count > 9 ? '9+' : String(count);
}

let icon: Promise<HTMLImageElement> | undefined;

function loadIcon(href: string): Promise<HTMLImageElement> {
  icon ??= new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      resolve(image);
    };
    image.onerror = () => {
      icon = undefined;
      reject(new Error('icon did not load'));
    };
    image.src = href;
  });
  return icon;
}

/** A PNG data URL of `href` with `count` in a red disc at the top right. */
export async function badgedIcon(href: string, count: number): Promise<string> {
  const image = await loadIcon(href);
  const canvas = document.createElement('canvas');
  canvas.width = ICON_SIZE_PX;
  canvas.height = ICON_SIZE_PX;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d canvas');
  context.drawImage(image, 0, 0, ICON_SIZE_PX, ICON_SIZE_PX);
  const centre = ICON_SIZE_PX - BADGE_RADIUS_PX;
  context.beginPath();
  context.arc(centre, BADGE_RADIUS_PX, BADGE_RADIUS_PX, 0, 2 * Math.PI);
  context.fillStyle = '#d92d20';
  context.fill();
  context.fillStyle = '#ffffff';
  context.font = `bold ${count > 9 ? 11 : 14}px sans-serif`;
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  context.fillText(badgeLabel(count), centre, BADGE_RADIUS_PX + 1);
  return canvas.toDataURL('image/png');
}

/** The page's icon link; its original `href` is kept in `data-plain-href`. */
function iconLink(): HTMLLinkElement | null {
  const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (link && link.dataset.plainHref === undefined) {
    link.dataset.plainHref = link.getAttribute('href') ?? '';
  }
  return link;
}

let generation = 0;

/** Shows `count` on the tab's icon (0: the plain icon). Only the newest call wins. */
export async function showCountOnIcon(count: number): Promise<void> {
  const link = iconLink();
  if (!link) return;
  const mine = ++generation;
  const plain = link.dataset.plainHref ?? '';
  if (count <= 0) {
    link.href = plain;
    link.dataset.count = '0';
    return;
  }
  try {
    const badged = await badgedIcon(plain, count);
    if (mine !== generation) return;
    link.href = badged;
    link.dataset.count = String(count);
  } catch {
    // Without a canvas or the icon the title still carries the count.
    if (mine === generation) link.dataset.count = 'unavailable';
  }
}
