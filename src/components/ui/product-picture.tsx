// A picture of what Outpost is, for the screens a newcomer sees first (welcome, an invite): a
// phone with a list kept on it, no signal, and the same list on a laptop, linked by sync. Drawn
// in the theme's colours (light and dark), decorative: the points beside it say it in words.
import './product-picture.css';

/** One row of a drawn list: a check circle (done or not) and a line for its title. */
function Row({ x, y, width, done }: { x: number; y: number; width: number; done: boolean }) {
  return (
    <g>
      <circle
        cx={x + 6}
        cy={y}
        r={5.5}
        className={done ? 'picture__check picture__check--done' : 'picture__check'}
      />
      {done ? <path d={`M${x + 3.5} ${y} l2 2 l3.5 -4`} className="picture__tick" /> : null}
      <rect
        x={x + 16}
        y={y - 2.5}
        width={width}
        height={5}
        rx={2.5}
        className={done ? 'picture__line picture__line--done' : 'picture__line'}
      />
    </g>
  );
}

export function ProductPicture() {
  return (
    <svg className="picture" viewBox="0 0 320 170" aria-hidden="true" focusable="false">
      {/* The phone: the list, kept on the device; no signal bars. */}
      <rect x={18} y={8} width={104} height={154} rx={14} className="picture__device" />
      <rect x={30} y={26} width={50} height={6} rx={3} className="picture__title" />
      <g className="picture__signal">
        <rect x={94} y={28} width={3} height={4} rx={1} />
        <rect x={99} y={25} width={3} height={7} rx={1} />
        <rect x={104} y={22} width={3} height={10} rx={1} />
        <path d="M92 20 L110 36" className="picture__no-signal" />
      </g>
      <Row x={30} y={52} width={62} done />
      <Row x={30} y={72} width={48} done />
      <Row x={30} y={92} width={66} done={false} />
      <Row x={30} y={112} width={40} done={false} />
      <Row x={30} y={132} width={56} done={false} />
      {/* Sync: changes go both ways once there is a connection. */}
      <path d="M132 70 C 160 50, 178 50, 196 66" className="picture__sync" />
      <path d="M196 98 C 178 114, 160 114, 132 96" className="picture__sync" />
      <path d="M190 58 l7 8 l-10 2" className="picture__arrow" />
      <path d="M138 104 l-7 -8 l10 -2" className="picture__arrow" />
      {/* The laptop: the same list, for the rest of the team. */}
      <rect x={204} y={40} width={100} height={70} rx={6} className="picture__device" />
      <path d="M194 118 h120 l-8 8 h-104 z" className="picture__device" />
      <rect x={214} y={52} width={44} height={5} rx={2.5} className="picture__title" />
      <Row x={214} y={70} width={56} done />
      <Row x={214} y={84} width={42} done />
      <Row x={214} y={98} width={60} done={false} />
    </svg>
  );
}
