// The known name a mistyped one most likely meant: one it begins (`gemini` for `gemini-cli`), or
// one a couple of typed letters away (`codx` for `codex`).

/** The name meant, or undefined when none is close enough to suggest. */
export function nearestName(typed: string, names: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  const prefixed = names.filter((n) => n.toLowerCase().startsWith(t) || t.startsWith(n.toLowerCase()));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(t, name.toLowerCase());
    if (distance <= Math.min(2, Math.floor(name.length / 3)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

/** Letters inserted, removed or changed to turn one word into the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
