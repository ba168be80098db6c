// The web addresses in a task's notes, so the task screen can show them as links (issue 40).
// Only http(s) addresses become links: anything else (javascript:, data:, a bare domain)
// stays text. An address ends where the sentence around it does: a trailing full stop, comma
// or closing bracket that is not part of it (a Wikipedia page's "(disambiguation)") stays out.

/** A piece of the notes: plain text, or an address to show as a link to `href`. */
export type NotePart = { text: string; href?: undefined } | { text: string; href: string };

/** Where an address may start: http:// or https:// after a non-word character. */
const ADDRESS = /\bhttps?:\/\/[^\s<>"]+/gi;
/** Sentence punctuation that ends an address rather than belonging to it. */
const TRAILING = /[.,;:!?'"*_)\]}]$/;

/** `candidate` less the punctuation after it; a ")" stays when it closes a "(" inside. */
function trimAddress(candidate: string): string {
  let address = candidate;
  while (TRAILING.test(address)) {
    const last = address.at(-1);
    if (last === ')' && count(address, '(') >= count(address, ')')) break;
    address = address.slice(0, -1);
  }
  return address;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/** The address as a link's href, or null when it is not a well-formed http(s) URL. */
function linkTarget(address: string): string | null {
  try {
    const url = new URL(address);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname
      ? url.href
      : null;
  } catch {
    return null;
  }
}

/** Splits notes into text and links, in order; joined, the parts' text is the notes. */
export function noteParts(notes: string): NotePart[] {
  const parts: NotePart[] = [];
  let at = 0;
  for (const match of notes.matchAll(ADDRESS)) {
    const address = trimAddress(match[0]);
    const href = linkTarget(address);
    if (!href) continue;
    if (match.index > at) parts.push({ text: notes.slice(at, match.index) });
    parts.push({ text: address, href });
    at = match.index + address.length;
  }
  if (at < notes.length) parts.push({ text: notes.slice(at) });
  return parts;
}
