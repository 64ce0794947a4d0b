/**
 * A sign-in link drawn as a QR code: SVG from the `qrcode` package, as a
 * `data:` image (the app's CSP allows `img-src data:`, and no markup is
 * injected into the page).
 *
 * The package is a chunk of its own, fetched the first time a QR code is
 * drawn and shared by every drawing after it: most page loads (the inbox on a
 * phone above all) never show one, and need not download it.
 */
type QrCodeLibrary = typeof import('qrcode');

let library: Promise<QrCodeLibrary> | undefined;

/** The library, fetched once; a fetch that failed is forgotten, so the next drawing tries again. */
function qrCodeLibrary(): Promise<QrCodeLibrary> {
  library ??= import('qrcode').then(
    // A CommonJS package: its exports are the namespace's `default`.
    (module) => module.default,
    (error: unknown) => {
      library = undefined;
      throw error;
    },
  );
  return library;
}

/**
 * `text` as a QR code's `data:` URL, or `undefined` when there is none to show:
 * the library's chunk did not arrive (offline, a build replaced under the
 * page), or `text` does not fit in a QR code.
 */
export async function qrImage(text: string): Promise<string | undefined> {
  try {
    const library = await qrCodeLibrary();
    const svg = await library.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  } catch {
    return undefined;
  }
}
