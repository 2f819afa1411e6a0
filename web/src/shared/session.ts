// The one thing a tab remembers: its credential, in sessionStorage, gone when the tab closes.
export function loadSession<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export function saveSession<T>(key: string, value: T | null): void {
  if (value === null) sessionStorage.removeItem(key);
  else sessionStorage.setItem(key, JSON.stringify(value));
}

/** Offers a Blob as a download under `name`. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function formatTime(seconds: unknown): string {
  if (typeof seconds !== 'number' || seconds <= 0) return '—';
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDate(seconds: unknown): string {
  if (typeof seconds !== 'number' || seconds <= 0) return '—';
  return new Date(seconds * 1000).toLocaleDateString(undefined, { dateStyle: 'medium' });
}
