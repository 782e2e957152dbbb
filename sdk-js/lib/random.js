"use strict";
// A seeded generator for a bot's randomness: the referee's bot_seed (a uint64) makes a bot
// that draws from `this.rng` play a given game the same way every time. xoshiro128**,
// its state filled by splitmix64 from the seed (its authors' way to seed it).

const MASK64 = (1n << 64n) - 1n;

function* splitmix64(seed) {
  let x = BigInt.asUintN(64, BigInt(seed));
  for (;;) {
    x = (x + 0x9e3779b97f4a7c15n) & MASK64;
    let z = x;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    yield z ^ (z >> 31n);
  }
}

class Random {
  /** A generator seeded by `seed` (a number, a bigint or a decimal string). */
  constructor(seed = 0) {
    const words = splitmix64(seed);
    const a = words.next().value;
    const b = words.next().value;
    this._s = new Uint32Array([
      Number(a & 0xffffffffn),
      Number(a >> 32n),
      Number(b & 0xffffffffn),
      Number(b >> 32n),
    ]);
  }

  /** The next 32 random bits, as an unsigned integer. */
  nextUint32() {
    const s = this._s;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A float in [0, 1). */
  random() {
    return this.nextUint32() / 0x100000000;
  }

  /** An integer in [0, n), without modulo bias. */
  below(n) {
    if (!Number.isInteger(n) || n <= 0 || n > 0x100000000) {
      throw new RangeError(`below(n) needs an integer 1 <= n <= 2**32, got ${n}`);
    }
    const limit = 0x100000000 - (0x100000000 % n);
    let x;
    do x = this.nextUint32();
    while (x >= limit);
    return x % n;
  }

  /** One element of a non-empty array. */
  choice(items) {
    if (items.length === 0) throw new RangeError("choice() of an empty array");
    return items[this.below(items.length)];
  }

  /** A shuffled copy of `items`. */
  shuffled(items) {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

function rotl(x, k) {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

module.exports = { Random };
