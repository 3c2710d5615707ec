/** NATS subject matching: `*` matches one token, `>` the rest (one or more tokens). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') {
      return s.length > i;
    }
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) {
      return false;
    }
  }
  return p.length === s.length;
}
