import { hex8, mix32, type Rng } from "./prng.js";

/**
 * Call uuids look random (version 4 layout) but their last group hides (account, day, row) behind a
 * seeded Feistel permutation, so `GET /v1/cdr/{uuid}` finds a call without indexing the whole world.
 * Message ids use the same layout with a kind of their own, so they are unique and never taken for a call.
 */

/** Where a call lives in the world. */
export interface CallLocator {
  readonly account: number;
  /** Days since 1970-01-01 (UTC). */
  readonly dayNumber: number;
  readonly index: number;
  /** 0 for generated calls, 1 for calls started through `POST /v1/calls`, 2 for messages. */
  readonly kind: 0 | 1 | 2;
}

const MASK24 = 0xffffff;
const CHECK = [0xa, 0xb, 0xc] as const;

function round(seed: number, r: number, half: number): number {
  return mix32(seed, 0x75756964, r, half) & MASK24;
}

function permute(seed: number, left: number, right: number): [number, number] {
  let l = left;
  let r = right;
  for (let i = 0; i < 4; i++) [l, r] = [r, (l ^ round(seed, i, r)) & MASK24];
  return [l, r];
}

function unpermute(seed: number, left: number, right: number): [number, number] {
  let l = left;
  let r = right;
  for (let i = 3; i >= 0; i--) [l, r] = [(r ^ round(seed, i, l)) & MASK24, l];
  return [l, r];
}

/** Builds the uuid of a call; the first groups come from `rng`. */
export function encodeCallUuid(seed: number, at: CallLocator, rng: Rng): string {
  const left = ((at.account & 0xff) << 16) | (at.dayNumber & 0xffff);
  const right = ((at.index & 0xfffff) << 4) | CHECK[at.kind];
  const [l, r] = permute(seed, left, right);
  const tail = l.toString(16).padStart(6, "0") + r.toString(16).padStart(6, "0");
  const a = hex8(rng.uint32());
  const b = hex8(rng.uint32());
  const c = hex8(rng.uint32());
  const variant = "89ab"[c.charCodeAt(0) & 3];
  return `${a}-${b.slice(0, 4)}-4${b.slice(4, 7)}-${variant}${c.slice(1, 4)}-${tail}`;
}

/** Recovers where a uuid's call lives, or null when the uuid was not made by this world. */
export function decodeCallUuid(seed: number, uuid: string): CallLocator | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid)) return null;
  const tail = uuid.slice(24);
  const [left, right] = unpermute(
    seed,
    Number.parseInt(tail.slice(0, 6), 16),
    Number.parseInt(tail.slice(6), 16),
  );
  const check = right & 0xf;
  const kind = CHECK.indexOf(check as 0xa | 0xb | 0xc);
  if (kind < 0) return null;
  return { account: left >>> 16, dayNumber: left & 0xffff, index: right >>> 4, kind: kind as 0 | 1 | 2 };
}
