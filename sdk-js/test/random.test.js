"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { Random } = require("..");

test("the same seed gives the same draws; another seed, others", () => {
  const draws = (seed) => {
    const rng = new Random(seed);
    return Array.from({ length: 8 }, () => rng.below(1000));
  };
  assert.deepEqual(draws("18446744073709551615"), draws(18446744073709551615n));
  assert.notDeepEqual(draws(1), draws(2));
});

test("draws are spread over their range", () => {
  const rng = new Random(7);
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) counts[rng.below(4)]++;
  for (const c of counts) assert.ok(c > 850 && c < 1150, `counts ${counts}`);
  const x = rng.random();
  assert.ok(x >= 0 && x < 1);
  assert.deepEqual(rng.shuffled([1, 2, 3, 4]).sort(), [1, 2, 3, 4]);
  assert.throws(() => rng.choice([]), RangeError);
});
