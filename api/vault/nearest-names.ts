// "Did you mean …?": the known names nearest a mistyped one, by edit distance (a swap of two neighbours counts as
// one edit), so an error or a warning can name what the caller probably meant.

/** Names longer than this are not compared (the work grows with the square of the length). */
const LONGEST = 64;

/** Edit distance between a and b (insertions, deletions, substitutions, swaps of neighbours), case ignored. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  // Three rows of the usual table are enough: the one before the previous is what a swap looks back to.
  let before: number[] = [];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[y.length]!;
}

/**
 * Up to `max` candidates close enough to `name` to be what was meant: a third of the name's length in edits at most
 * (at least one), nearest first, then alphabetically; a name that differs only in case is offered alone; failing
 * those, the names that begin with it.
 */
export function nearestNames(name: string, candidates: readonly string[], max = 3): string[] {
  if (name.length === 0 || name.length > LONGEST) return [];
  // Only the case differs: that is the one meant.
  const sameLetters = candidates.find((c) => c !== name && c.toLowerCase() === name.toLowerCase());
  if (sameLetters !== undefined) return [sameLetters];
  const within = Math.max(1, Math.floor(name.length / 3));
  const near = candidates
    .filter((c) => c !== name && c.length <= LONGEST)
    .map((c) => ({ c, d: editDistance(name, c) }))
    .filter(({ d }) => d <= within)
    .sort((p, q) => p.d - q.d || (p.c < q.c ? -1 : p.c > q.c ? 1 : 0))
    .slice(0, max)
    .map(({ c }) => c);
  if (near.length || name.length < 4) return near;
  // The start of a longer name (`AuditList`): the names it begins.
  return candidates.filter((c) => c.toLowerCase().startsWith(name.toLowerCase()) && c !== name).sort().slice(0, max);
}

/** ` (did you mean A or B?)`, or nothing when no name is near. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const near = nearestNames(name, candidates);
  if (near.length === 0) return '';
  const listed = near.length === 1 ? near[0]! : `${near.slice(0, -1).join(', ')} or ${near.at(-1)!}`;
  return ` (did you mean ${listed}?)`;
}
