// Benchmark profiles: 120 fields, about 5.5 KB of JSON each, with unique login, email and phone.
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima'];

export function benchProfile(n: number, run: string): Record<string, unknown> {
  const p: Record<string, unknown> = {
    login: `login-${run}-${n}`,
    email: `user${n}-${run}@example.com`,
    phone: `+1555${String(n).padStart(7, '0')}`,
    name: `Person ${n} ${WORDS[n % WORDS.length]}`,
  };
  for (let f = 0; f < 116; f++) {
    const w = WORDS[(n + f) % WORDS.length]!;
    p[`attribute_${f}`] = f % 4 === 0 ? n * 31 + f : f % 4 === 1 ? `${w}-${w}-${n}-${f}-${w.toUpperCase()}` : `${w} street ${f}, ${w} city ${n}, county`;
  }
  return p;
}
