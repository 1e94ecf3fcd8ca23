import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Product } from '../store/schema.js';
import { loadProductInfos, type ProductInfo } from '../store/products.js';
import type { Services } from '../services.js';
import { mulberry32 } from '../random.js';

/**
 * Card pictures (docs/using-the-website.md, "Card pictures"). The API's `image` field is a path
 * relative to the site (`./img/items/{idGame}/{abbreviation}/{idProduct}.jpg` in the demo data);
 * this serves every such path at `/img/…`, so API clients that download a product's image get one
 * and the pages show the same picture:
 *  - the operator's file at the same path under `IMAGE_DIR`, when there is one;
 *  - otherwise a card face drawn from the product (name, expansion, rarity colour, number, an art
 *    pattern from a hash of the product): an SVG, the same bytes every time, kept in a bounded
 *    memory cache, with an ETag and a day of `Cache-Control`.
 * A drawn face is `image/svg+xml` whatever the path's extension (`.jpg` included): browsers and
 * HTTP clients go by the Content-Type, and the path is the API's, not ours to change. The route is
 * outside the session hook (no cookie, no database read but the product's cached info) and never
 * in the API's path.
 */

export const IMAGE_PREFIX = '/img/';

/** The site path a page shows for a product: its `image` path when it is one of ours, else the demo's form. */
export function imagePath(
  product: Pick<Product, 'idProduct' | 'idGame' | 'image'>,
  abbreviation?: string,
): string {
  const image = product.image;
  if (
    /^\.?\/img\/[\w./-]+$/.test(image) &&
    !image.includes('..') &&
    idOfImagePath(image) === product.idProduct
  )
    return image.replace(/^\./, '');
  return `${IMAGE_PREFIX}items/${product.idGame}/${encodeURIComponent(abbreviation || 'x')}/${product.idProduct}.jpg`;
}

/**
 * A product's picture on an outside host the operator admitted (`IMAGE_HOSTS`): its `image` when
 * that is an `https://` address on one of them, else undefined (the picture is ours).
 */
export function outsideImage(image: string, hosts: readonly string[]): string | undefined {
  if (hosts.length === 0 || !image.startsWith('https://')) return undefined;
  let url: URL;
  try {
    url = new URL(image);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.port || !hosts.includes(url.hostname)) return undefined;
  return url.href;
}

/** The product id an image path names: its file name's number (`…/123.jpg`). */
function idOfImagePath(path: string): number | undefined {
  const m = /\/(\d{1,10})\.(?:jpe?g|png|webp|gif|svg)$/i.exec(path);
  return m ? Number(m[1]) : undefined;
}

const TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
};

/** Rarity → frame colour; anything else gets the common grey. */
const RARITY_COLOURS: [RegExp, string][] = [
  [/mythic/i, '#d9480f'],
  [/secret|special|ultra|hyper|illustration/i, '#7048e8'],
  [/rare|holo/i, '#c79a00'],
  [/uncommon/i, '#5c7cfa'],
  [/land|token|promo/i, '#2b8a3e'],
];
const COMMON_COLOUR = '#495057';

export function rarityColour(rarity: string | null | undefined): string {
  for (const [pattern, colour] of RARITY_COLOURS) if (rarity && pattern.test(rarity)) return colour;
  return COMMON_COLOUR;
}

const XML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (text: string) => text.replace(/[&<>"']/g, (c) => XML[c]!);

/** At most `max` characters, an ellipsis for the rest (by code points: no half emoji). */
function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export interface FaceInput {
  idProduct: number;
  name: string;
  expansion: string;
  rarity: string;
  number: string;
  gameName: string;
}

/** The card face of a product: an SVG of 244 × 340 (a card's proportions), the same bytes for the same input. */
export function cardFace(f: FaceInput): string {
  const digest = createHash('sha256').update(`${f.idProduct}\n${f.name}\n${f.expansion}`).digest();
  const random = mulberry32(digest.readUInt32BE(0));
  const hue = digest.readUInt16BE(4) % 360;
  const hue2 = (hue + 40 + (digest[6]! % 160)) % 360;
  const frame = rarityColour(f.rarity);
  const shapes: string[] = [];
  const count = 5 + (digest[7]! % 5);
  for (let i = 0; i < count; i++) {
    const x = Math.round(22 + random() * 200);
    const y = Math.round(52 + random() * 150);
    const r = Math.round(8 + random() * 38);
    const h = Math.round((hue + random() * 120) % 360);
    const o = (0.35 + random() * 0.45).toFixed(2);
    if (random() < 0.5)
      shapes.push(`<circle cx="${x}" cy="${y}" r="${r}" fill="hsl(${h} 70% 60%)" opacity="${o}"/>`);
    else {
      const pts = [0, 1, 2].map((k) => {
        const a = random() * Math.PI * 2 + (k * Math.PI * 2) / 3;
        return `${Math.round(x + Math.cos(a) * r * 1.4)},${Math.round(y + Math.sin(a) * r * 1.4)}`;
      });
      shapes.push(`<polygon points="${pts.join(' ')}" fill="hsl(${h} 65% 45%)" opacity="${o}"/>`);
    }
  }
  const bottom = [f.rarity, f.number ? `#${f.number}` : ''].filter(Boolean).join(' · ');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 244 340" width="244" height="340" role="img">` +
    `<title>${xml(f.name)}</title>` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">` +
    `<stop offset="0" stop-color="hsl(${hue} 60% 32%)"/><stop offset="1" stop-color="hsl(${hue2} 55% 22%)"/>` +
    `</linearGradient><clipPath id="c"><rect x="16" y="44" width="212" height="168" rx="4"/></clipPath></defs>` +
    `<rect width="244" height="340" rx="14" fill="${frame}"/>` +
    `<rect x="8" y="8" width="228" height="324" rx="9" fill="#f8f9fa"/>` +
    `<rect x="16" y="44" width="212" height="168" rx="4" fill="url(#g)"/>` +
    `<g clip-path="url(#c)">${shapes.join('')}</g>` +
    `<text x="18" y="32" font-family="sans-serif" font-size="15" font-weight="700" fill="#212529">${xml(clip(f.name, 24))}</text>` +
    `<text x="18" y="236" font-family="sans-serif" font-size="12" fill="#495057">${xml(clip(f.expansion || f.gameName, 32))}</text>` +
    `<rect x="16" y="250" width="212" height="58" rx="4" fill="#e9ecef"/>` +
    `<text x="26" y="274" font-family="sans-serif" font-size="11" fill="#868e96">${xml(clip(f.gameName, 36))}</text>` +
    `<circle cx="212" cy="232" r="7" fill="${frame}"/>` +
    `<text x="18" y="326" font-family="sans-serif" font-size="11" fill="#343a40">${xml(clip(bottom, 36))}</text>` +
    `</svg>`
  );
}

interface Picture {
  body: Buffer;
  type: string;
  etag: string;
}

/** Drawn faces by their input, most recently used last; about 3 KB each. */
const faces = new Map<string, Picture>();
export const MAX_KEPT_FACES = 2_000;

function drawnFace(input: FaceInput): Picture {
  const key = JSON.stringify(input);
  const kept = faces.get(key);
  if (kept) {
    faces.delete(key);
    faces.set(key, kept);
    return kept;
  }
  const body = Buffer.from(cardFace(input), 'utf8');
  const picture = { body, type: 'image/svg+xml', etag: etagOf(body) };
  if (faces.size >= MAX_KEPT_FACES) faces.delete(faces.keys().next().value!);
  faces.set(key, picture);
  return picture;
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

export function faceInput(info: ProductInfo): FaceInput {
  const p = info.product;
  return {
    idProduct: p.idProduct,
    name: info.names[1] ?? p.enName,
    expansion: info.expansion?.enName ?? '',
    rarity: p.rarity ?? '',
    number: p.number ?? '',
    gameName: info.gameName,
  };
}

/** The operator's file for this path under `IMAGE_DIR`, when one is there (and inside it). */
async function operatorPicture(dir: string, relative: string): Promise<Picture | undefined> {
  const type = TYPES[extname(relative).toLowerCase()];
  if (!type) return undefined;
  try {
    const root = await realpath(dir);
    const file = await realpath(join(root, relative));
    if (!file.startsWith(root + sep)) return undefined;
    const body = await readFile(file);
    return { body, type, etag: etagOf(body) };
  } catch {
    return undefined;
  }
}

function send(request: FastifyRequest, reply: FastifyReply, picture: Picture, maxAge: number): FastifyReply {
  reply.headers({
    'Content-Type': picture.type,
    ETag: picture.etag,
    'Cache-Control': `public, max-age=${maxAge}`,
    'X-Content-Type-Options': 'nosniff',
    // An SVG opened on its own is a document: it may draw, never run or load anything.
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  });
  reply.removeHeader('Referrer-Policy');
  const asked = request.headers['if-none-match'];
  if (asked && asked.split(',').some((t) => t.trim().replace(/^W\//, '') === picture.etag))
    return reply.code(304).send();
  return reply.code(200).send(picture.body);
}

export function imagePages(app: FastifyInstance, services: Services): void {
  app.get(`${IMAGE_PREFIX}*`, async (request, reply) => {
    const relative = (request.params as { '*': string })['*'];
    const id = idOfImagePath(`/${relative}`);
    if (!/^[\w.-]+(?:\/[\w.-]+)*$/.test(relative) || relative.includes('..') || id === undefined)
      throw new ApiError(404, 'There is no such picture.');
    if (services.config.imageDir) {
      const own = await operatorPicture(services.config.imageDir, relative);
      if (own) return send(request, reply, own, 86_400);
    }
    const [info] = await loadProductInfos(services.database.db, [id]);
    if (!info) throw new ApiError(404, `There is no product ${id}.`);
    return send(request, reply, drawnFace(faceInput(info)), 86_400);
  });
}
