// How old a person's request is against the one month the GDPR gives to answer it (Art. 12(3)).
const DAY = 86_400_000;

export interface Deadline {
  /** Whole days since the request was made. */
  age: number;
  /** Whole days left before the deadline; negative once it has passed. */
  left: number;
  /** The deadline itself: the same day one calendar month later. */
  due: Date;
}

/** `made` in Unix seconds, as the vault answers `creationtime`. */
export function deadlineOf(made: number, now = Date.now()): Deadline {
  const start = new Date(made * 1000);
  const due = new Date(start);
  due.setMonth(due.getMonth() + 1);
  // 31 January + one month is 3 March in JavaScript: the deadline is the month's last day instead.
  if (due.getDate() !== start.getDate()) due.setDate(0);
  return { age: Math.floor((now - start.getTime()) / DAY), left: Math.floor((due.getTime() - now) / DAY), due };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
