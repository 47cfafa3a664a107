/** A small seeded generator (mulberry32), so generated test cases are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A string of up to `maxLength` pieces drawn from `alphabet`. */
export function randomText(random: () => number, alphabet: readonly string[], maxLength: number): string {
  const length = Math.floor(random() * (maxLength + 1));
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
  return text;
}
