// The "Perhaps you meant …" hints PostgREST gives for a name it cannot find. PostgREST picks
// them with a fuzzy set (n-grams of 3 then 2 characters, cosine similarity, the best 50
// re-scored by Levenshtein distance); this is the same method, so the same name is suggested.

const GRAM_SIZES = [3, 2] as const;
/** How many cosine matches are re-scored by edit distance. */
const RESCORE_COUNT = 50;

function grams(value: string, size: number): Map<string, number> {
  // Lower case, only letters, digits, '_', ',' and spaces, padded with '-' as the fuzzy set does.
  let padded = `-${value.toLowerCase().replace(/[^\p{L}\p{N}_, ]+/gu, '')}-`;
  while (padded.length < size) padded += '-';
  const counts = new Map<string, number>();
  for (let i = 0; i + size <= padded.length; i += 1) {
    const gram = padded.slice(i, i + size);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

function norm(vector: Map<string, number>): number {
  let sum = 0;
  for (const n of vector.values()) sum += n * n;
  return Math.sqrt(sum);
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1;
      current.push(
        Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidate most like `value` with a score of at least `minScore` (0..1), if any. */
export function closest(
  candidates: readonly string[],
  value: string,
  minScore: number,
): string | undefined {
  for (const size of GRAM_SIZES) {
    const wanted = grams(value, size);
    const wantedNorm = norm(wanted);
    const scored: { candidate: string; score: number }[] = [];
    for (const candidate of candidates) {
      const theirs = grams(candidate, size);
      let dot = 0;
      for (const [gram, n] of wanted) dot += n * (theirs.get(gram) ?? 0);
      if (dot > 0) scored.push({ candidate, score: dot / (wantedNorm * norm(theirs)) });
    }
    if (scored.length === 0) continue;
    scored.sort((a, b) => b.score - a.score);
    const rescored = scored.slice(0, RESCORE_COUNT).map(({ candidate }) => {
      const a = candidate.toLowerCase();
      const b = value.toLowerCase();
      return { candidate, score: 1 - levenshtein(a, b) / Math.max(a.length, b.length) };
    });
    rescored.sort((a, b) => b.score - a.score);
    const best = rescored.find((r) => r.score >= minScore);
    if (best) return best.candidate;
  }
  return undefined;
}
