// A person's avatar: their picture when there is one, else initials on a colour derived
// from their id (stable across devices). The name is the accessible label.

const HUES = [200, 340, 30, 140, 260, 10, 180, 290];

function hueFor(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0;
  return HUES[Math.abs(hash) % HUES.length] ?? 200;
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0], parts[parts.length - 1]] : [parts[0]];
  return (
    letters
      .map((part) => part?.[0] ?? '')
      .join('')
      .toUpperCase() || '?'
  );
}

export function Avatar({
  id,
  name,
  src,
  size = 28,
  decorative = false,
}: {
  id: string;
  name: string;
  src?: string | null | undefined;
  size?: number;
  /** True when the name is already written next to it. */
  decorative?: boolean;
}) {
  const label = decorative ? undefined : name;
  const style = { width: size, height: size, fontSize: Math.round(size * 0.42) };
  if (src) {
    return (
      <img
        className="avatar"
        src={src}
        alt={label ?? ''}
        style={style}
        width={size}
        height={size}
      />
    );
  }
  return (
    <span
      className="avatar avatar--initials"
      role={decorative ? undefined : 'img'}
      aria-label={label}
      aria-hidden={decorative ? true : undefined}
      title={name}
      style={{ ...style, backgroundColor: `hsl(${hueFor(id)} 55% 42%)` }}
    >
      {initials(name)}
    </span>
  );
}
