/**
 * Writes the web app's icons (web/public/*.png) from one drawing: Clarion's
 * mark, an open ring with a dot (a call for attention), white on the app's
 * accent blue. Run `node web/scripts/make-icons.js` after changing it and
 * commit the PNGs; the build copies them as they are. No dependencies: the
 * PNG is written by hand (RGBA, one zlib stream), the shapes are signed
 * distances sampled 4×4 per pixel for smooth edges.
 */
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { URL } from 'node:url';
import { deflateSync } from 'node:zlib';

const ACCENT = [0x2f, 0x5b, 0xd3]; // --accent in web/src/styles.css
const GLYPH = [0xff, 0xff, 0xff];
const OUT = new URL('../public/', import.meta.url);

/**
 * `purpose` any: a rounded square on transparency, the mark filling it.
 * maskable (and Apple's touch icon): full bleed, the mark inside the 80 %
 * safe circle a platform's mask keeps.
 */
const ICONS = [
  { file: 'icon-192.png', size: 192, fullBleed: false, scale: 1 },
  { file: 'icon-512.png', size: 512, fullBleed: false, scale: 1 },
  { file: 'icon-maskable-192.png', size: 192, fullBleed: true, scale: 0.72 },
  { file: 'icon-maskable-512.png', size: 512, fullBleed: true, scale: 0.72 },
  { file: 'apple-touch-icon.png', size: 180, fullBleed: true, scale: 0.8 },
  { file: 'favicon-32.png', size: 32, fullBleed: false, scale: 1.1 },
];

// The mark in unit coordinates around the centre: ring radius, stroke, gap, dot.
const RING_R = 0.27;
const STROKE = 0.1;
const GAP_HALF_RAD = (42 * Math.PI) / 180;
const DOT_R = 0.075;
const CORNER_R = 0.22;

function inMark(x, y) {
  const distance = Math.hypot(x, y);
  if (distance <= DOT_R) return true;
  const angle = Math.abs(Math.atan2(y, x));
  const toRing =
    angle > GAP_HALF_RAD
      ? Math.abs(distance - RING_R)
      : Math.hypot(
          x - RING_R * Math.cos(GAP_HALF_RAD),
          Math.abs(y) - RING_R * Math.sin(GAP_HALF_RAD),
        );
  return toRing <= STROKE / 2;
}

function inRoundedSquare(x, y) {
  const qx = Math.max(Math.abs(x) - (0.5 - CORNER_R), 0);
  const qy = Math.max(Math.abs(y) - (0.5 - CORNER_R), 0);
  return Math.hypot(qx, qy) <= CORNER_R;
}

function render({ size, fullBleed, scale }) {
  const samples = 4;
  const rows = [];
  for (let py = 0; py < size; py += 1) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0: none
    for (let px = 0; px < size; px += 1) {
      let background = 0;
      let mark = 0;
      for (let sy = 0; sy < samples; sy += 1) {
        for (let sx = 0; sx < samples; sx += 1) {
          const x = (px + (sx + 0.5) / samples) / size - 0.5;
          const y = (py + (sy + 0.5) / samples) / size - 0.5;
          if (fullBleed || inRoundedSquare(x, y)) background += 1;
          if (inMark(x / scale, y / scale)) mark += 1;
        }
      }
      const total = samples * samples;
      const alpha = background / total;
      const ink = Math.min(mark, background) / Math.max(background, 1);
      const offset = 1 + px * 4;
      for (let channel = 0; channel < 3; channel += 1) {
        row[offset + channel] = Math.round(ACCENT[channel] * (1 - ink) + GLYPH[channel] * ink);
      }
      row[offset + 3] = Math.round(alpha * 255);
    }
    rows.push(row);
  }
  return png(size, size, Buffer.concat(rows));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(width, height, scanlines) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const icon of ICONS) {
  writeFileSync(new URL(icon.file, OUT), render(icon));
}
